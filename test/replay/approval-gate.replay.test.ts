import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { decodeHistory, HISTORIES_DIR } from './history-codec';

/**
 * Replays checked-in approvalGate histories (recorded by `record-histories.ts`) against
 * today's workflow code. A failure here means a change would break gates already running
 * in production: version it with `patched()` instead of re-recording.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const files = fs.readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')).sort();

function histories(): { workflowId: string; history: ReturnType<typeof decodeHistory> }[] {
  return files.map((f) => ({ workflowId: path.basename(f, '.json'), history: decodeHistory(fs.readFileSync(path.join(HISTORIES_DIR, f), 'utf8')) }));
}

/** The suite's prebuilt bundle when jest's globalSetup made one, else bundle from source. */
function currentCode(): Pick<ReplayWorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  const bundle = process.env.GATE_TEST_WORKFLOW_BUNDLE;
  return bundle && fs.existsSync(bundle) ? { workflowBundle: { codePath: bundle } } : { workflowsPath: require.resolve('../../src/workflows') };
}

const quiet = (): void => undefined;
const quietLogger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

beforeAll(() => {
  try {
    // The variant test provokes a nondeterminism error on purpose; keep core's warning about it quiet.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    /* installed already in this worker process */
  }
});

describe('approvalGateWorkflow replay', () => {
  it('has the three recorded paths checked in', () => {
    expect(files).toEqual(['approve-consume.json', 'reject-signal.json', 'ttl-expiry.json']);
  });

  it.each(files)('reads %s as a complete approvalGateWorkflow history', (file) => {
    const h = decodeHistory(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8'));
    const events = h.events ?? [];
    expect(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe('approvalGateWorkflow');
    expect(events[events.length - 1]?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('replays every recorded history without a determinism error', async () => {
    const results: { workflowId: string; error?: unknown }[] = [];
    for await (const r of Worker.runReplayHistories({ ...currentCode(), replayName: 'approval-gate-replay' }, histories())) results.push(r);
    expect(results.map((r) => r.workflowId).sort()).toEqual(files.map((f) => path.basename(f, '.json')));
    for (const r of results) expect({ workflowId: r.workflowId, error: r.error ?? null }).toEqual({ workflowId: r.workflowId, error: null });
  });

  it('catches a workflow changed in a non-replay-safe way', async () => {
    // A variant that does one more thing (a timer) before the gate's first command.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-variant-'));
    const variant = path.join(dir, 'workflows.ts');
    fs.writeFileSync(
      variant,
      [
        "import { sleep } from '@temporalio/workflow';",
        `import { approvalGateWorkflow as original } from ${JSON.stringify(path.join(ROOT, 'src', 'workflows', 'approval-gate'))};`,
        'export async function approvalGateWorkflow(input: Parameters<typeof original>[0]) {',
        "  await sleep('1s');",
        '  return original(input);',
        '}',
        '',
      ].join('\n'),
    );
    try {
      const { code } = await bundleWorkflowCode({
        workflowsPath: variant,
        logger: quietLogger,
        // The variant lives outside the project: let webpack find the project's packages.
        webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? []), path.join(ROOT, 'node_modules')] } }),
      });
      const [first] = histories();
      await expect(Worker.runReplayHistory({ workflowBundle: { code }, replayName: 'approval-gate-replay-variant' }, first!.history, first!.workflowId)).rejects.toBeInstanceOf(DeterminismViolationError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
