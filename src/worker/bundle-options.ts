import path from 'node:path';

/**
 * Modules the workflow bundle evaluates once per worker instead of once per workflow.
 *
 * With `reuseV8Context` (the SDK default) every cached workflow gets its own module
 * cache, so each pending gate carried its own copy of zod: about 180 schema classes
 * and their closures per cached gate, a large part of the memory that grew with the
 * queue. Preloaded modules are shared and deep-frozen by the SDK, which suits stateless
 * libraries. Our own `src/common/` modules are not preloaded (zod schemas cache their
 * parsers on first use, which a frozen schema refuses); their schemas are built once
 * per worker through `sharedSchema` (src/common/shared-schema.ts), which is preloaded.
 *
 * The libraries are named in `src/workflow/internal/shared-libraries.ts`, through the same ESM
 * imports the workflow code uses (a bare `require('zod')` here would preload the
 * CommonJS build, a second copy nobody uses, or be dropped as side-effect free).
 */
export function preloadModules(): string[] {
  return [workflowModule('shared-libraries')];
}

/** A module of src/workflow, as source (tests, tsx) or as built (dist). */
function workflowModule(name: string): string {
  return path.join(__dirname, '..', 'workflow', 'internal', __filename.endsWith('.ts') ? `${name}.ts` : `${name}.js`);
}

/** The preload that sets the gate workers' frame limit (src/workflow/internal/stack-frames.ts). */
export function stackFramesModule(): string {
  return workflowModule('stack-frames');
}

export interface WorkflowBundleChoices {
  /**
   * Capture stacks for promises and errors in workflow code (`GATE_WORKFLOW_STACK_TRACES`),
   * as the SDK does by default. Off in the gate's own workers: `src/workflow/internal/stack-frames.ts`
   * says why and what it costs. Plugin hosts (`approvalGatePlugin`) keep the SDK's default.
   */
  stackTraces?: boolean;
}

/** Bundler options of the gate's own workers: the prebuilt bundle, a worker's bundling at start, `gate stack`, tests. */
export function workflowBundlerOptions(choices: WorkflowBundleChoices = {}): { preloadModules: string[] } {
  return {
    preloadModules: [...preloadModules(), ...(choices.stackTraces ? [] : [stackFramesModule()])],
  };
}
