import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';

const ROOT = path.join(__dirname, '..', '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-dev-'));
let env: NodeJS.ProcessEnv;

/** Starts `gate dev` as a real process and resolves once it prints its ready line. */
function startDev(json = false): Promise<{ proc: ChildProcess; out: () => string; stdout: () => string }> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin', 'gate.js'), 'dev', ...(json ? ['--json'] : [])], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gate dev not ready in 90 s:\n${out}`)), 90_000);
    proc.stdout!.on('data', () => {
      if (/^ready:/m.test(out) || /"status":"ready"/.test(out)) {
        clearTimeout(timer);
        resolve({ proc, out: () => out, stdout: () => stdout });
      }
    });
    proc.once('exit', (code) => reject(new Error(`gate dev exited ${code}:\n${out}`)));
  });
}

async function stop(proc: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  proc.kill('SIGINT');
  return exited;
}

beforeAll(async () => {
  env = {
    ...process.env,
    TEMPORAL_ADDRESS: '', // gate dev starts its own server
    GATE_CLI_FROM_SOURCE: '1',
    GATE_DATA_DIR: dataDir,
    GATE_PORT: String(await freePort()),
    GATE_TEMPORAL_PORT: String(await freePort()),
    GATE_TEMPORAL_UI_PORT: String(await freePort()),
    GATE_TASK_QUEUE: 'gate-dev-test',
    GATE_LOG_LEVEL: 'warn',
  };
});

describe('gate dev', () => {
  it('starts server, worker and API, prints the URLs and a ready line (text or --json), keeps gates across a restart, and stops on Ctrl-C', async () => {
    const first = await startDev();
    const apiUrl = /API:\s+(\S+)/.exec(first.out())![1]!;
    const uiUrl = /Temporal Web UI:\s+(\S+)/.exec(first.out())![1]!;
    expect(apiUrl).toBe(`http://127.0.0.1:${env.GATE_PORT}`);
    expect(uiUrl).toBe(`http://127.0.0.1:${env.GATE_TEMPORAL_UI_PORT}`);
    expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
    expect((await fetch(uiUrl)).status).toBe(200);

    const key = JSON.parse(
      spawnSync(
        process.execPath,
        [path.join(ROOT, 'bin', 'gate.js'), 'keys', 'create', '--kind', 'agent', '--id', 'dev-agent', '--json'],
        { env, encoding: 'utf8' },
      ).stdout,
    ).key;
    const created = await fetch(`${apiUrl}/v1/approvals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        correlation_id: 'c1',
        trigger_event_id: 'e1',
        action: 'db.migrate',
        target: 'orders',
        summary: 'Add index',
        args: { sql_sha256: 'ab' },
        ttl_seconds: 3600,
      }),
    });
    expect(created.status).toBe(201);
    const { request_id } = (await created.json()) as { request_id: string };
    expect(await stop(first.proc)).toBe(0);

    const second = await startDev(true);
    expect(JSON.parse(second.stdout().trim().split('\n')[0]!)).toEqual({
      status: 'ready',
      api_url: apiUrl,
      reviewer_page: `${apiUrl}/`,
      ui_url: uiUrl,
      temporal_address: `127.0.0.1:${env.GATE_TEMPORAL_PORT}`,
    });
    const again = await fetch(`${apiUrl}/v1/approvals/${request_id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { status: string }).status).toBe('requested');
    expect(await stop(second.proc)).toBe(0);
    expect(
      second
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).status),
    ).toEqual(['ready', 'stopped']);
  });
});
