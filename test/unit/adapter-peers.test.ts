import fs from 'node:fs';
import path from 'node:path';
import { ADAPTER_PEERS, requirePeers } from '../../src/adapters/common/peers';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('the frameworks of the adapter subpaths', () => {
  it('are the optional peer dependencies package.json declares, with the same ranges', () => {
    const named = Object.assign({}, ...Object.values(ADAPTER_PEERS)) as Record<string, string>;
    expect(named).toEqual(pkg.peerDependencies);
    for (const name of Object.keys(named)) expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
  });

  it('name one exported subpath each', () => {
    for (const sub of Object.keys(ADAPTER_PEERS)) expect(pkg.exports[`./${sub}`]).toBeDefined();
  });

  it('are all installed in this checkout, so each adapter loads here', () => {
    for (const sub of Object.keys(ADAPTER_PEERS))
      expect(() => requirePeers(sub as keyof typeof ADAPTER_PEERS)).not.toThrow();
  });
});
