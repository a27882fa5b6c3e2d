import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { devServerArgs } from '../../src/dev/temporal-cli';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/common/search-attributes';
import { servedQuery } from '../../src/worker/search-attributes';

const KEY = 'system.forceSearchAttributesCacheRefreshOnRead';

// With the key on, the server re-reads the attribute metadata for every listed row
// (a 500-row listing on gate stack: 0.44-1.1 s against 57-148 ms); its docs keep it out of production.
describe('the search attribute cache', () => {
  it('is not bypassed by the dynamic config of gate stack and docker-compose', () => {
    const file = path.join(__dirname, '..', '..', 'deploy', 'temporal', 'dynamicconfig.yaml');
    const cfg = YAML.parse(fs.readFileSync(file, 'utf8')) as Record<string, { value: unknown }[]>;
    expect(cfg[KEY]?.map((v) => v.value)).toEqual([false]);
  });

  it('is not bypassed by the dev server, which registers the attributes before it serves', () => {
    const args = devServerArgs({ port: 7233, headless: true });
    expect(args).toContain(`${KEY}=false`);
    expect(args[args.indexOf(`${KEY}=false`) - 1]).toBe('--dynamic-config-value');
    for (const name of Object.values(SEARCH_ATTRIBUTE_NAMES)) expect(args).toContain(`${name}=Keyword`);
  });

  it('is probed with a query that names every gate attribute', () => {
    const q = servedQuery();
    for (const name of Object.values(SEARCH_ATTRIBUTE_NAMES)) expect(q).toContain(`${name} = `);
  });
});
