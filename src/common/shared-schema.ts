/**
 * Builds a schema once per process and hands every later caller the same instance.
 *
 * Why: in a worker, each workflow evaluates the modules it imports in its own module
 * cache, so module-level schemas were built again for every gate in the workflow cache
 * (about 90 zod schemas, most of a cached gate's memory, and CPU at every cache miss).
 * This module is preloaded once into the worker's shared context (see
 * `src/worker/bundle-options.ts`); its Map is not reachable from its exports, so the SDK's
 * freeze of preloaded modules leaves it, and the schemas in it, writable, which zod
 * needs (it caches parsers on first use). Schemas are stateless validators, so sharing
 * them cannot carry state from one workflow to another. Outside a worker it is a plain
 * memo. Keys are `<module>.<name>` and must be unique.
 */
const built = new Map<string, unknown>();

export function sharedSchema<T>(key: string, build: () => T): T {
  if (built.has(key)) return built.get(key) as T;
  const schema = build();
  built.set(key, schema);
  return schema;
}
