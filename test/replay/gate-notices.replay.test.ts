import { historyFiles, HISTORIES_DIR } from './history-codec';
import {
  currentCode,
  expectAllReplayed,
  installQuietRuntime,
  marksByPath,
  replayErrors,
  type Covers,
} from './replay-support';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Replays the gates recorded since the last release (histories/unreleased/gate/, the gates
 * that tell reviewers: patch `gate-notices`) against today's workflow code. When the next
 * release is cut the folder becomes that release's, and approval-gate.replay.test.ts takes
 * these paths over (test/replay/README.md).
 */

const UNRELEASED = 'unreleased';
const files = historyFiles('gate', [UNRELEASED]);

/** What each path must show (test/replay/recorder/notice-paths.ts records them). */
const COVERS: Covers = {
  'chain-expiry.approvalGateWorkflow': [
    'patch:gate-notices',
    'activity:deliverNotice',
    'timer-fired',
    'event:approval.escalated',
    'event:approval.expired',
  ],
  'decided-between-levels.approvalGateWorkflow': [
    'activity:deliverNotice',
    'event:approval.escalated',
    'event:approval.approved',
    'update:consume',
    'event:approval.consumed',
  ],
  'notified-ended.approvalGateWorkflow': ['activity:deliverNotice', 'decide:reject', 'event:approval.denied'],
};

beforeAll(installQuietRuntime);

describe('approvalGateWorkflow replay of unreleased changes', () => {
  it('has a history for every path', () => {
    expect(fs.existsSync(path.join(HISTORIES_DIR, UNRELEASED, 'gate'))).toBe(true);
    expect([...new Set(files.map((f) => `${f.path}.${f.type}`))].sort()).toEqual(Object.keys(COVERS).sort());
  });

  it('shows in each history what its path is named for', () => {
    for (const [key, marks] of marksByPath(files))
      expect({ key, marks: [...marks] }).toEqual({
        key,
        marks: expect.arrayContaining(COVERS[key] ?? [`a Covers entry for ${key}`]),
      });
  });

  it('replays every recorded gate without a determinism error', async () => {
    expectAllReplayed(files, await replayErrors(currentCode(), files));
  });
});
