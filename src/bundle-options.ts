import fs from 'node:fs';
import path from 'node:path';

/**
 * Modules the workflow bundle evaluates once per worker instead of once per workflow.
 *
 * With `reuseV8Context` (the SDK default) every cached workflow gets its own module
 * cache, so each pending gate carried its own copy of zod and of every schema built
 * from it: about 1.4 MB of heap per cached gate, the cause of the memory growth with
 * many pending gates. The modules listed here are stateless (pure schemas and
 * functions, no Temporal imports; `src/core/` is lint-enforced to stay that way), so
 * sharing them cannot leak state between workflows.
 */
export function preloadModules(): string[] {
  const core = path.resolve(__dirname, 'core');
  const own = fs
    .readdirSync(core)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(core, f));
  return ['zod', 'canonicalize', '@noble/hashes/sha256', '@noble/hashes/utils'];
}

/** Bundler options shared by the prebuilt bundle, the worker's own bundling and the tests. */
export function workflowBundlerOptions(): { preloadModules: string[] } {
  return { preloadModules: preloadModules() };
}
