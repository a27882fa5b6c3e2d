// Prebuilds the workflow bundle for production workers (STYLE: "a prebuilt workflow
// bundle in production"): dist/src/workflow-bundle.js, picked up by src/worker/create-gate-worker.ts.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlerOptions } from '../src/worker/bundle-options';

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflow/bundle-entry'),
    ...workflowBundlerOptions(),
  });
  const out = path.resolve(__dirname, '..', 'dist', 'src', 'workflow-bundle.js');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  // Progress goes to stderr: stdout is `npm pack --json`'s answer when the build runs as prepack.
  console.error(`workflow bundle: ${out} (${code.length} bytes)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
