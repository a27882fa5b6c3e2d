import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { compareReleases, marksOf, readHistory, replayId, type HistoryFile } from './history-codec';

const ROOT = path.resolve(__dirname, '..', '..');
const quiet = (): void => undefined;
export const quietLogger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

/** The release being cut: package.json's version, whose histories must be checked in. */
export const CURRENT_RELEASE = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** The suite's prebuilt bundle when jest's globalSetup made one, else bundle from source. */
export function currentCode(): Pick<ReplayWorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  const bundle = process.env.GATE_TEST_WORKFLOW_BUNDLE;
  return bundle && fs.existsSync(bundle)
    ? { workflowBundle: { codePath: bundle } }
    : { workflowsPath: require.resolve('../../src/workflow/bundle-entry') };
}

/** The variant tests provoke a nondeterminism error on purpose; keep core's warning about it quiet. */
export function installQuietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    /* installed already in this worker process */
  }
}

/** Bundles the workflows of `workflowsPath` (a file inside the project) as a gate worker bundles its own. */
export async function bundle(workflowsPath: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions(), logger: quietLogger });
  return code;
}

/**
 * Replays `files` against `code`; the error of each, keyed by replay id (null when it
 * replayed). `idOf` names the execution a history replays under (its file's id by default).
 */
export async function replayErrors(
  code: Pick<ReplayWorkerOptions, 'workflowBundle' | 'workflowsPath'>,
  files: HistoryFile[],
  idOf: (f: HistoryFile) => string = replayId,
): Promise<Record<string, string | null>> {
  const byId = new Map(files.map((f) => [idOf(f), f]));
  const out: Record<string, string | null> = {};
  for await (const r of Worker.runReplayHistories(
    { ...code, replayName: 'release-replay' },
    files.map((f) => ({ workflowId: idOf(f), history: readHistory(f) })),
  )) {
    const f = byId.get(r.workflowId)!;
    out[replayId(f)] = r.error ? `${(r.error as Error).name}: ${(r.error as Error).message}` : null;
  }
  return out;
}

/** Every file replayed, none with an error. */
export function expectAllReplayed(files: HistoryFile[], errors: Record<string, string | null>): void {
  expect(Object.keys(errors).sort()).toEqual(files.map(replayId).sort());
  expect(Object.entries(errors).filter(([, e]) => e !== null)).toEqual([]);
}

/**
 * What each recorded path must show (marks, see `marksOf`), keyed `<path>.<WorkflowType>`;
 * the marks of a path that continued as new are those of all its executions.
 */
export type Covers = Record<string, string[]>;

/** The union of marks of every file of each `<path>.<type>`. */
export function marksByPath(files: HistoryFile[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const f of files) {
    const key = `${f.path}.${f.type}`;
    const marks = out.get(key) ?? new Set<string>();
    for (const m of marksOf(readHistory(f))) marks.add(m);
    out.set(key, marks);
  }
  return out;
}

/**
 * What the releases after `after` record beyond `covers`: the paths added since (`after` and
 * earlier releases have none; test/replay/README.md lists them by the release that added
 * them), and what an earlier path shows now that its code took a patch's new branch.
 */
export interface CoversAfter {
  after: string;
  covers: Covers;
}

/** The paths a release's folder holds, with what each must show. */
export function coversOf(release: string, covers: Covers, later: CoversAfter[] = []): Covers {
  return Object.assign(
    { ...covers },
    ...later.filter((a) => compareReleases(release, a.after) > 0).map((a) => a.covers),
  ) as Covers;
}

/**
 * Checks a set's corpus: the current release has a history for every path in `covers` and
 * `later` it records (and no other), every release's histories are described there, and each
 * shows what its path is named for. Executions of one workflow chain: each starts from the
 * one before, and only the last one closes.
 */
export function describeCorpus(set: string, files: HistoryFile[], covers: Covers, later: CoversAfter[] = []): void {
  const releasesSeen = [...new Set(files.map((f) => f.release))];

  it(`has ${set} histories for release ${CURRENT_RELEASE}, one or more per path`, () => {
    const current = files.filter((f) => f.release === CURRENT_RELEASE);
    expect([...new Set(current.map((f) => `${f.path}.${f.type}`))].sort()).toEqual(
      Object.keys(coversOf(CURRENT_RELEASE, covers, later)).sort(),
    );
  });

  it.each(releasesSeen)(`%s: every ${set} history shows what its path is named for`, (release) => {
    const described = coversOf(release, covers, later);
    for (const [key, marks] of marksByPath(files.filter((f) => f.release === release)))
      expect({ key, marks: [...marks] }).toEqual({
        key,
        marks: expect.arrayContaining(described[key] ?? [`a Covers entry for ${key}`]),
      });
  });

  it.each(files.map(replayId))('%s is a closed history of the workflow type in its name', (id) => {
    const f = files.find((x) => replayId(x) === id)!;
    const events = readHistory(f).events ?? [];
    expect(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(f.type);
    const siblings = files.filter((x) => x.release === f.release && x.path === f.path && x.type === f.type);
    const last = events[events.length - 1];
    const closed = last?.workflowExecutionCompletedEventAttributes ?? last?.workflowExecutionCanceledEventAttributes;
    if (f.execution < siblings.length) expect(last?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    else expect(closed).toBeTruthy();
    // A later execution starts from the one before it.
    const previous = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    expect(Boolean(previous)).toBe(f.execution > 1);
  });
}

/**
 * Bundles a variant of workflow `name` (from `src/workflow/<file>`) that does one more
 * thing, a timer, before its first command: replaying a recorded history against it must
 * fail. `alsoExport` re-exports other workflows (child types) unchanged.
 */
export async function bundleDelayedVariant(
  name: string,
  file: string,
  alsoExport: { name: string; file: string }[] = [],
): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-variant-'));
  const variant = path.join(dir, 'workflows.ts');
  const src = (f: string): string => JSON.stringify(path.join(ROOT, 'src', 'workflow', f));
  fs.writeFileSync(
    variant,
    [
      "import { sleep } from '@temporalio/workflow';",
      `import { ${name} as original } from ${src(file)};`,
      ...alsoExport.map((e) => `export { ${e.name} } from ${src(e.file)};`),
      `export async function ${name}(input: Parameters<typeof original>[0]) {`,
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
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? []), path.join(ROOT, 'node_modules')] },
      }),
    });
    return code;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
