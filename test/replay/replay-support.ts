import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, type ReplayWorkerOptions } from '@temporalio/worker';

const ROOT = path.resolve(__dirname, '..', '..');
const quiet = (): void => undefined;
const quietLogger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

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

/**
 * Bundles a variant of workflow `name` (from `src/workflows/<file>`) that does one more
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
  const src = (f: string): string => JSON.stringify(path.join(ROOT, 'src', 'workflows', f));
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
