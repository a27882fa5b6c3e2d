import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';

// Every long-running `gate` command checks the notification settings before it opens
// anything (src/notify/config.ts): a channel that cannot work stops the start, naming the
// missing setting and never the secret beside it.

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'gate.js');
const TOKEN = 'xoxb-startup-secret-4242';

function gate(command: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const full = {
    ...process.env,
    GATE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gate-notify-')),
    GATE_CLI_FROM_SOURCE: '1',
    ...env,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, command], { cwd: ROOT, env: full, timeout: 60_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    );
  });
}

describe('startup with notification settings that cannot work', () => {
  it('gate worker refuses a Slack token without GATE_PUBLIC_URL, without showing the token', async () => {
    const r = await gate('worker', { GATE_SLACK_BOT_TOKEN: TOKEN, GATE_NOTIFY: 'slack:#approvals' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('GATE_SLACK_BOT_TOKEN, GATE_NOTIFY are set but GATE_PUBLIC_URL is not');
    expect(r.stderr).not.toContain(TOKEN);
  });

  it.each(['api', 'dev'])('gate %s refuses a GATE_NOTIFY target whose channel is not configured', async (command) => {
    const port = String(await freePort());
    const r = await gate(command, {
      GATE_PORT: port,
      GATE_PUBLIC_URL: 'https://gate.example.test',
      GATE_NOTIFY: 'email:leads@example.test',
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('GATE_NOTIFY email:leads@example.test: GATE_SMTP_URL is not set');
    expect(r.stderr).not.toMatch(/\n\s+at /); // the operator's error, not a stack trace
  });
});
