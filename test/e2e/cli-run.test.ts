import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { createGateWorker, type GateWorker } from '../../src/worker/create-gate-worker';
import { freePort } from '../support/ports';
import { tripDomain } from '../../examples/trip';

// `gate run start <scenario>` / `gate run show` against the real worker (agent loop,
// trip domain, gates) and API: the scripted trip scenario runs to its approval and on.

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'gate.js');

let worker: GateWorker;
let running: Promise<void>;
let api: RunningApi;
let baseEnv: NodeJS.ProcessEnv;
let agentKey: string;
let reviewerKey: string;

function gate(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...baseEnv, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

type RunView = {
  run_id: string;
  status: string;
  goal: string;
  final_answer?: string;
  pending_approvals: { request_id: string }[];
  pending_interactions: { id: string }[];
};

/** Polls the run over HTTP until `done` holds. */
async function runUntil(id: string, done: (r: RunView) => boolean, ms = 30_000): Promise<RunView> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await fetch(`${api.url}/v1/runs/${id}`, { headers: { authorization: `Bearer ${reviewerKey}` } });
    const run = (await res.json()) as RunView;
    if (res.ok && done(run)) return run;
    if (Date.now() > end) throw new Error(`run ${id} did not get there in time: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function keyOf(kind: string, id: string): Promise<string> {
  const r = await gate(['keys', 'create', '--kind', kind, '--id', id, '--json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { key: string }).key;
}

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'cli-run-'));
  process.env.GATE_LOG_LEVEL = 'silent';
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') }); // the worker's state changes would drown the test output
  } catch {
    /* a runtime is already installed in this jest worker */
  }
  // The suite's prebuilt bundle: the worker would otherwise bundle the workflows again.
  process.env.GATE_WORKFLOW_BUNDLE = process.env.GATE_TEST_WORKFLOW_BUNDLE;
  const env = {
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_TASK_QUEUE: `cli-run-${randomUUID()}`,
    GATE_PORT: String(await freePort()),
    GATE_WEBHOOK_URLS: '',
  };
  const cfg = loadConfig(env);
  worker = await createGateWorker({ ...cfg, domains: [tripDomain] });
  running = worker.run();
  api = await startApiServer(cfg, { domains: [tripDomain] });
  baseEnv = { ...env, GATE_API_URL: api.url, GATE_API_KEY: '', GATE_CLI_FROM_SOURCE: '1' };
  agentKey = await keyOf('agent', 'trip-agent');
  reviewerKey = await keyOf('reviewer', 'ann');
});

afterAll(async () => {
  await api?.close();
  await worker?.shutdown();
  await running;
});

describe('gate run', () => {
  it('starts a scenario by name, waits at its approval, and completes after gate approve', async () => {
    const started = await gate(['run', 'start', 'trip-approve', '--goal', 'File my Busan trip', '--json'], {
      GATE_API_KEY: agentKey,
    });
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const { run_id: runId } = JSON.parse(started.stdout) as { run_id: string };
    expect(runId).toMatch(/\S/);

    const waiting = await runUntil(runId, (r) => r.pending_approvals.length > 0);
    expect(waiting.goal).toBe('File my Busan trip');
    const shown = await gate(['run', 'show', runId], { GATE_API_KEY: reviewerKey });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/status:\s+waiting_approval/);
    expect(shown.stdout).toContain(waiting.pending_approvals[0]!.request_id);

    const approved = await gate(['approve', waiting.pending_approvals[0]!.request_id, '--note', 'within policy'], {
      GATE_API_KEY: reviewerKey,
    });
    expect(approved.code).toBe(0);
    await runUntil(runId, (r) => r.status === 'completed');
    const done = await gate(['run', 'show', runId], { GATE_API_KEY: reviewerKey });
    expect(done.stdout).toMatch(/status:\s+completed/);
    expect(done.stdout).toMatch(/tool \[c3\] success/);
    const audit = await gate(['run', 'audit', runId], { GATE_API_KEY: reviewerKey });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/run\.started/);
    expect(audit.stdout).toMatch(/chain intact/);
  });

  it('answers an interaction with gate run respond and cancels a waiting run with gate run cancel', async () => {
    const file = path.join(os.tmpdir(), `ask-${Date.now()}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        goal: 'Ask first',
        domain: 'trip',
        model: {
          kind: 'scripted',
          turns: [
            {
              content: '',
              tool_calls: [
                { id: 'a1', name: 'ask_user', args: { type: 'CONFIRM', target: 'trip', prompt: 'Go ahead?' } },
              ],
            },
            { content: 'answer {{value:a1.value}}' },
          ],
        },
      }),
    );
    const { run_id: askId } = JSON.parse(
      (await gate(['run', 'start', file, '--json'], { GATE_API_KEY: agentKey })).stdout,
    ) as { run_id: string };
    const asking = await runUntil(askId, (r) => r.pending_interactions.length > 0);
    const iid = asking.pending_interactions[0]!.id;
    expect((await gate(['run', 'respond', askId, iid, '--value', 'maybe'], { GATE_API_KEY: reviewerKey })).code).toBe(
      1,
    );
    expect((await gate(['run', 'respond', askId, iid, '--value', 'true'], { GATE_API_KEY: reviewerKey })).code).toBe(0);
    expect((await runUntil(askId, (r) => r.status === 'completed')).final_answer).toBe('answer true');

    const started = await gate(['run', 'start', 'trip-approve', '--json'], { GATE_API_KEY: agentKey });
    const { run_id: runId } = JSON.parse(started.stdout) as { run_id: string };
    await runUntil(runId, (r) => r.pending_approvals.length > 0);
    expect((await gate(['run', 'cancel', runId], { GATE_API_KEY: agentKey })).code).toBe(0);
    expect((await runUntil(runId, (r) => r.status === 'cancelled')).status).toBe('cancelled');
  });

  it('refuses to start a run with a reviewer key, and a scenario that does not exist', async () => {
    const wrongKey = await gate(['run', 'start', 'trip-approve'], { GATE_API_KEY: reviewerKey });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^error: /);
    expect((await gate(['run', 'start', 'no-such-scenario'], { GATE_API_KEY: agentKey })).code).toBe(2);
  });
});
