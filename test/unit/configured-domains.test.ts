import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configuredDomains } from '../../src/domain/configured';
import { tripDomain } from '../../examples/trip';

describe('the domains the gate processes serve', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-domains-'));

  it('serves the trip example when GATE_DOMAINS_MODULE is unset', () => {
    expect(configuredDomains({})).toEqual([tripDomain]);
  });

  it("serves the module's exported domains instead", () => {
    const file = path.join(dir, 'domains.js');
    fs.writeFileSync(file, "exports.domains = [{ name: 'refunds', tools: [] }];\n");
    expect(configuredDomains({ GATE_DOMAINS_MODULE: file })).toEqual([{ name: 'refunds', tools: [] }]);
  });

  it('refuses a module without a domains array, naming the variable', () => {
    const file = path.join(dir, 'empty.js');
    fs.writeFileSync(file, 'exports.other = 1;\n');
    expect(() => configuredDomains({ GATE_DOMAINS_MODULE: file })).toThrow(
      `GATE_DOMAINS_MODULE=${file} must export a "domains" array`,
    );
  });
});
