// Workflow bundles, built once per run. The gate's is built exactly as
// scripts/bundle-workflows.ts builds the production bundle (workflowBundlerOptions);
// every gate worker of the run (in process or child) loads it through
// GATE_WORKFLOW_BUNDLE, as production workers load dist/src/workflow-bundle.js.
import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { stackFramesModule, workflowBundlerOptions } from '../src/worker/bundle-options';

export interface Bundles {
  gate: string;
  baseline: string;
}

async function write(file: string, workflowsPath: string, extra: object): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath, ...extra, logger: new DefaultLogger('WARN') }); // webpack's stats only on trouble
  fs.writeFileSync(file, code);
  return file;
}

/**
 * Bundles the gate workflows (unless GATE_WORKFLOW_BUNDLE names a prebuilt one) and the
 * baselines: with the SDK's stack capture, or with the gate workers' frame limit (`bareStacks`).
 */
export async function buildBundles(dir: string, bareStacks: 'sdk' | 'gate'): Promise<Bundles> {
  const given = process.env.GATE_WORKFLOW_BUNDLE;
  const gate =
    given && fs.existsSync(given)
      ? given
      : await write(
          path.join(dir, 'gate-workflow-bundle.js'),
          require.resolve('../src/workflow/bundle-entry'),
          workflowBundlerOptions(),
        );
  const baseline = await write(
    path.join(dir, 'baseline-workflow-bundle.js'),
    require.resolve('./baseline-workflows'),
    bareStacks === 'gate' ? { preloadModules: [stackFramesModule()] } : {},
  );
  return { gate, baseline };
}
