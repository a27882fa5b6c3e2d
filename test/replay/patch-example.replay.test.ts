import { HISTORY_SETS, historyFiles, patchIdsOf, readHistory, replayId } from './history-codec';
import { bundle, expectAllReplayed, installQuietRuntime, replayErrors } from './replay-support';

/**
 * The pattern for the next workflow change (docs/upgrading.md): a gate workflow that does
 * one more thing, behind `patched('example-change')` (test/replay/example-change/patched.ts),
 * replays every released gate history; the same change without `patched()`
 * (unguarded.ts) does not.
 */

/** Every released gate history: external gates, tool gates of runs, gates of user workflows. */
const gates = HISTORY_SETS.flatMap((set) => historyFiles(set)).filter((f) => f.type === 'approvalGateWorkflow');

/** True when the execution completed (a continued one hands over before the change is reached). */
const completed = (id: string): boolean => {
  const events = readHistory(gates.find((f) => replayId(f) === id)!).events ?? [];
  return Boolean(events[events.length - 1]?.workflowExecutionCompletedEventAttributes);
};

beforeAll(installQuietRuntime);

describe('a gate change guarded by patched()', () => {
  it('starts from release histories that carry no marker of it', () => {
    expect(gates.length).toBeGreaterThan(0);
    for (const f of gates) expect(patchIdsOf(readHistory(f).events ?? [])).not.toContain('example-change');
  });

  it('replays every released gate history', async () => {
    const code = await bundle(require.resolve('./example-change/patched'));
    expectAllReplayed(gates, await replayErrors({ workflowBundle: { code } }, gates));
  }, 120_000);

  it('fails without patched() on every released gate that completed', async () => {
    const code = await bundle(require.resolve('./example-change/unguarded'));
    const errors = await replayErrors({ workflowBundle: { code } }, gates);
    expect(Object.keys(errors).sort()).toEqual(gates.map(replayId).sort());
    for (const [id, error] of Object.entries(errors))
      expect({ id, error }).toEqual({ id, error: completed(id) ? expect.stringMatching(/Determinism/) : null });
  }, 120_000);
});
