import path from 'node:path';

/**
 * Modules the workflow bundle evaluates once per worker instead of once per workflow.
 *
 * With `reuseV8Context` (the SDK default) every cached workflow gets its own module
 * cache, so each pending gate carried its own copy of zod: about 180 schema classes
 * and their closures per cached gate, a large part of the memory that grew with the
 * queue. Preloaded modules are shared and deep-frozen by the SDK, which suits stateless
 * libraries. Our own `src/core/` modules are not preloaded (zod schemas cache their
 * parsers on first use, which a frozen schema refuses); their schemas are built once
 * per worker through `sharedSchema` (src/core/shared-schema.ts), which is preloaded.
 *
 * The libraries are named in `src/workflows/shared-libraries.ts`, through the same ESM
 * imports the workflow code uses (a bare `require('zod')` here would preload the
 * CommonJS build, a second copy nobody uses, or be dropped as side-effect free).
 */
export function preloadModules(): string[] {
  const dir = path.join(__dirname, 'workflows');
  return [path.join(dir, __filename.endsWith('.ts') ? 'shared-libraries.ts' : 'shared-libraries.js')];
}

/** Bundler options shared by the prebuilt bundle, the worker's own bundling and the tests. */
export function workflowBundlerOptions(): { preloadModules: string[] } {
  return { preloadModules: preloadModules() };
}
