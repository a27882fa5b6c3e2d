import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleDelayedVariant, currentCode, installQuietRuntime } from './replay-support';
import { decodeHistory, HISTORIES_DIR } from './history-codec';

/**
 * Replays checked-in approvalGate histories (recorded by `record-histories.ts`) against
 * today's workflow code. A failure here means a change would break gates already running
 * in production: version it with `patched()` instead of re-recording.
 */

const files = fs.readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')).sort();

function histories(): { workflowId: string; history: ReturnType<typeof decodeHistory> }[] {
  return files.map((f) => ({ workflowId: path.basename(f, '.json'), history: decodeHistory(fs.readFileSync(path.join(HISTORIES_DIR, f), 'utf8')) }));
}


beforeAll(installQuietRuntime);

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
    const code = await bundleDelayedVariant('approvalGateWorkflow', 'approval-gate');
    const [first] = histories();
    await expect(Worker.runReplayHistory({ workflowBundle: { code }, replayName: 'approval-gate-replay-variant' }, first!.history, first!.workflowId)).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
