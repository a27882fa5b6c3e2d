import { brandErrorClass, ConfigurationError } from '../common/errors';
import type { DomainAdapter, DomainContext, DomainSource, DomainTool } from './types';

/** The domains a worker or API serves, looked up by name. */
export interface DomainRegistry {
  /** Names of the registered domains. */
  names(): string[];
  /** The adapter of a domain. Throws `UnknownDomainError` when none is registered under that name. */
  get(domain: string): DomainAdapter;
  /**
   * A tool of a domain by a name that came from a model, or undefined when there is
   * no such tool (the loop answers `unknown_tool`). Throws for an unknown domain.
   */
  findTool(domain: string, name: string): DomainTool | undefined;
}

/** A domain name nobody registered: a configuration or request error, never retried into success. */
export class UnknownDomainError extends ConfigurationError {
  constructor(
    readonly domain: string,
    registered: string[],
  ) {
    super(`unknown domain "${domain}"; registered domains: ${registered.join(', ') || '(none)'}`);
  }
}
brandErrorClass(UnknownDomainError, 'UnknownDomainError');

/**
 * Builds the registry. Names are looked up as own properties of prototype-less
 * objects, so an untrusted name such as `__proto__`, `constructor` or `toString`
 * is simply unknown instead of reaching Object.prototype. Throws on duplicate names.
 */
export function createDomainRegistry(adapters: DomainAdapter[]): DomainRegistry {
  const domains: Record<string, DomainAdapter> = Object.create(null);
  const tools: Record<string, Record<string, DomainTool>> = Object.create(null);
  for (const adapter of adapters) {
    if (Object.hasOwn(domains, adapter.name)) throw new Error(`domain "${adapter.name}" is registered twice`);
    domains[adapter.name] = adapter;
    const byName: Record<string, DomainTool> = Object.create(null);
    for (const tool of adapter.tools) {
      if (Object.hasOwn(byName, tool.name))
        throw new Error(`domain "${adapter.name}" has two tools named "${tool.name}"`);
      byName[tool.name] = tool;
    }
    tools[adapter.name] = byName;
  }
  const names = (): string[] => Object.keys(domains);
  const get = (domain: string): DomainAdapter => {
    if (typeof domain !== 'string' || !Object.hasOwn(domains, domain))
      throw new UnknownDomainError(String(domain), names());
    return domains[domain]!;
  };
  return {
    names,
    get,
    findTool(domain, name) {
      get(domain);
      const byName = tools[domain]!;
      return typeof name === 'string' && Object.hasOwn(byName, name) ? byName[name] : undefined;
    },
  };
}

/** Builds each source's adapter (calling factories once, in order) and registers them. Throws on duplicate names. */
export async function resolveDomains(sources: readonly DomainSource[], ctx: DomainContext): Promise<DomainRegistry> {
  const adapters: DomainAdapter[] = [];
  for (const source of sources) adapters.push(typeof source === 'function' ? await source(ctx) : source);
  return createDomainRegistry(adapters);
}
