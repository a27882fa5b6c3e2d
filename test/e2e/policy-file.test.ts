import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';

// `gate api` validates GATE_POLICY_FILE before it opens anything: a bad rule file stops the
// start with every problem named, instead of an API running on rules nobody wrote.

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'gate.js');

function gateApi(policyFile: string, port: number): Promise<{ code: number; stderr: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-policy-'));
  const env = {
    ...process.env,
    GATE_POLICY_FILE: policyFile,
    GATE_DATA_DIR: dataDir,
    GATE_PORT: String(port),
    GATE_CLI_FROM_SOURCE: '1',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'api'], { cwd: ROOT, env, timeout: 60_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    );
  });
}

describe('gate api with GATE_POLICY_FILE', () => {
  it('refuses to start on an invalid rule file and names each problem', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-rules-')), 'rules.yaml');
    fs.writeFileSync(file, 'rules:\n  - action: Refund.*\n    roles: []\n');
    const r = await gateApi(file, await freePort());
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`reviewer policy ${file} is invalid`);
    expect(r.stderr).toMatch(/rules\[0\]\.action: /);
    expect(r.stderr).toMatch(/rules\[0\]\.roles: /);
    expect(r.stderr).not.toMatch(/\n\s+at /); // the operator's error, not a stack trace
  });

  it('refuses to start when the file is missing', async () => {
    const r = await gateApi(path.join(os.tmpdir(), 'no-such-rules.yaml'), await freePort());
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no-such-rules\.yaml is invalid:\n {2}- cannot be read: ENOENT/);
  });
});
