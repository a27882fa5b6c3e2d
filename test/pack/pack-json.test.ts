import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run, stageSources } from './tarball';

// `npm pack --json` runs the build (prepack) and answers on stdout: the build's progress must
// go to stderr, or the answer is not JSON. Staged in a copy, so this checkout's dist/ stays.

let stage: string;
beforeAll(() => {
  stage = stageSources(fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-pack-json-')));
});
afterAll(() => {
  if (stage) fs.rmSync(path.dirname(stage), { recursive: true, force: true });
});

describe('npm pack --json', () => {
  it('prints only JSON on stdout, the build included', () => {
    const out = run('npm', ['pack', '--json', '--dry-run'], stage);
    const [info] = JSON.parse(out) as { name: string; files: { path: string }[] }[];
    expect(info!.name).toBe('approval-gate');
    // The dry run did build: the tarball would carry the workflow bundle.
    expect(info!.files.map((f) => f.path)).toContain('dist/src/workflow-bundle.js');
  }, 600_000);
});
