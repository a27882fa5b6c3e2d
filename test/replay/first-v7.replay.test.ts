import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { decodeHistory } from './history-codec';
import { currentCode, installQuietRuntime } from './replay-support';

/**
 * The first recording of set v7 (commit 6e2bbd0: tool gates re-checking inside the tool's
 * activity, under the second patch baseline). A later merge recorded another set under
 * the name v7 and the re-check one as v8; these files were deployed as recorded and are
 * kept here as they were, beside the sets of HISTORY_VERSIONS. Never re-recorded or edited.
 *
 * Five of its runs do not replay on today's code. They looked up the reviewer rules in a
 * local activity (2ae1266); 6411a99 made that lookup a regular activity under the same
 * patch id (`run-gate-reviewer-policy-v1`), and every set recorded since has the regular
 * one. No marker tells the two apart before the lookup, so one code cannot replay both;
 * README "Not built yet" says which runs this strands. The test names them, so a fix
 * shows up as a change here.
 */
const STRANDED = [
  'agent-run/run-cancel.agentRunWorkflow.json',
  'agent-run/trip-approve.agentRunWorkflow.json',
  'agent-run/trip-batch.agentRunWorkflow.json',
  'agent-run/trip-modify.agentRunWorkflow.json',
  'agent-run/trip-reject.agentRunWorkflow.json',
];
const DIR = path.join(__dirname, 'histories', 'v7-first');
const files = ['', 'agent-run']
  .flatMap((sub) =>
    fs
      .readdirSync(path.join(DIR, sub))
      .filter((f) => f.endsWith('.json'))
      .map((f) => path.join(sub, f)),
  )
  .sort();

beforeAll(installQuietRuntime);

describe('the first v7 recording', () => {
  it('holds the gate and run histories of commit 6e2bbd0', () => {
    expect(files).toHaveLength(17);
    const types = new Set(
      files.map(
        (f) =>
          decodeHistory(fs.readFileSync(path.join(DIR, f), 'utf8')).events?.[0]?.workflowExecutionStartedEventAttributes
            ?.workflowType?.name,
      ),
    );
    expect([...types].sort()).toEqual(['agentRunWorkflow', 'approvalGateWorkflow']);
  });

  it('replays on today’s code, but for the runs whose rule lookup was a local activity', async () => {
    const histories = files.map((f) => ({
      workflowId: f,
      history: decodeHistory(fs.readFileSync(path.join(DIR, f), 'utf8')),
    }));
    const results: { workflowId: string; error?: unknown }[] = [];
    for await (const r of Worker.runReplayHistories({ ...currentCode(), replayName: 'v7-first-replay' }, histories))
      results.push(r);
    expect(results.map((r) => r.workflowId).sort()).toEqual(files);
    for (const r of results) {
      const error = r.error instanceof Error ? r.error.message : r.error ? String(r.error) : null;
      if (STRANDED.includes(r.workflowId)) expect(error).toMatch(/Missing associated machine for LocalActivity/);
      else expect({ file: r.workflowId, error }).toEqual({ file: r.workflowId, error: null });
    }
  });
});
