// Preloaded into the V8 context of the gate's own workers (src/worker/bundle-options.ts), before
// the SDK freezes that context's globals, unless GATE_WORKFLOW_STACK_TRACES is on.
//
// For the `__stack_trace` query the SDK's promise hook captures a stack for every promise
// workflow code creates, and maps each frame through the bundle's source map. A gate
// lifecycle creates about 90 promises; that capture was the largest part of the CPU its
// workflow thread spent beyond a bare workflow's (bench/results/2026-12-03-workflow-stacks.md). With no
// frames captured the hook still tracks promises, only without stacks: the query answers
// empty stacks, and an error thrown in workflow code reaches Temporal with its message
// but no frames. Workers with GATE_WORKFLOW_STACK_TRACES=1 bundle without this module.

/** Frames V8 captures for an error or promise created in workflow code on the gate's workers. */
export const WORKFLOW_STACK_FRAMES = 0;
Error.stackTraceLimit = WORKFLOW_STACK_FRAMES;
