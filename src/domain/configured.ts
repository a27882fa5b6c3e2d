import path from 'node:path';
import { tripDomain } from './trip';
import type { DomainSource } from './types';

/**
 * The domains the `gate` processes (`gate dev`, `gate worker`, `gate api`) serve: those
 * exported as `domains` by the module named in `GATE_DOMAINS_MODULE`, else the example
 * trip domain. A library user passes their domains to createGateWorker/startApiServer instead.
 * Throws when the module exports no `domains` array.
 */
export function configuredDomains(env: NodeJS.ProcessEnv = process.env): DomainSource[] {
  const file = env.GATE_DOMAINS_MODULE;
  if (!file) return [tripDomain];
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a user's module, named at run time
  const mod = require(path.resolve(file)) as { domains?: unknown; default?: { domains?: unknown } };
  const domains = mod.domains ?? mod.default?.domains;
  if (!Array.isArray(domains)) throw new Error(`GATE_DOMAINS_MODULE=${file} must export a "domains" array`);
  return domains as DomainSource[];
}
