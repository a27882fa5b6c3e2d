import type { EvidenceEscalation } from '../policy/policy-evidence';
import { durationSeconds, type EscalationChain } from '../policy/policy-v2';
import type { z } from 'zod';

// Escalation chains (docs/notifications.md "Escalation chains"): which chain a request
// gets, who is told at creation, and when each level fires. Pure: the API, the library
// and the gate workflow share these definitions.

/** A chain as the evidence carries it: `after` in seconds from creation. */
export type GateChain = z.infer<typeof EvidenceEscalation>;

/** Name recorded for a chain sent in the create body rather than named in the rule file. */
export const INLINE_CHAIN = 'inline';

/** One level firing: `level` is 1-based in the chain's order, `loop` 0 for the first pass. */
export interface ScheduledLevel {
  level: number;
  loop: number;
  /** Epoch ms of the workflow clock. */
  at: number;
  notify: string[];
  roles: string[];
}

/** A chain of the create body (or the library's options) in evidence form. */
export function evidenceChain(name: string, c: EscalationChain): GateChain {
  return {
    name,
    levels: c.levels.map((l) => ({
      after_seconds: durationSeconds(l.after),
      ...(l.notify ? { notify: l.notify } : {}),
      ...(l.roles ? { roles: l.roles } : {}),
    })),
    repeat: c.repeat,
  };
}

/**
 * Every level of the chain in firing order, the `repeat` loops included. A loop starts
 * again where the last level fired (loop k adds k times the last level's `after`), and
 * only levels before the expiry are kept: a chain never extends the TTL.
 */
export function levelSchedule(chain: GateChain, createdMs: number, expiresMs: number): ScheduledLevel[] {
  const period = Math.max(0, ...chain.levels.map((l) => l.after_seconds)) * 1000;
  const out: ScheduledLevel[] = [];
  for (let loop = 0; loop <= chain.repeat; loop++)
    chain.levels.forEach((l, i) => {
      const at = createdMs + loop * period + l.after_seconds * 1000;
      if (at < expiresMs) out.push({ level: i + 1, loop, at, notify: l.notify ?? [], roles: l.roles ?? [] });
    });
  // Stable: two levels at one time fire in the chain's order.
  return out.sort((a, b) => a.at - b.at);
}

/**
 * Levels that fire at or after the expiry (their `after` counted from creation), each
 * named, for the 422 (or the library's InvalidInput): the chain would otherwise promise a
 * reminder the gate never sends, since expiry fails closed first. Repeated loops are not
 * checked: they run while the request is pending and stop at its expiry.
 */
export function levelsPastExpiry(
  chain: GateChain,
  ttlSeconds: number,
  path = 'escalation',
): { path: string; message: string }[] {
  return chain.levels.flatMap((l, i) =>
    l.after_seconds >= ttlSeconds
      ? [
          {
            path: `${path}.levels[${i}].after`,
            message: `level ${i + 1} fires ${l.after_seconds} s after creation, at or after the request expires (${ttlSeconds} s): a chain never extends the TTL`,
          },
        ]
      : [],
  );
}

/**
 * Targets told at creation (level 0): the request's own `notify`, else its rule's, else
 * the server's default (GATE_NOTIFY). An empty list on the request means nobody.
 */
export function levelZeroTargets(
  requested: readonly string[] | undefined,
  rule: readonly string[] | undefined,
  defaults: readonly string[],
): string[] {
  return [...new Set(requested ?? rule ?? defaults)];
}

/** Every target a gate may tell (level 0 and every level), once each: what the create checks against the settings. */
export function allTargets(level0: readonly string[], chain: GateChain | undefined): string[] {
  return [...new Set([...level0, ...(chain?.levels.flatMap((l) => l.notify ?? []) ?? [])])];
}

/** Roles a chain's levels add that the rule does not already allow: a request may not widen who decides. */
export function rolesOutsideRule(chain: GateChain, ruleRoles: readonly string[]): string[] {
  if (ruleRoles.length === 0) return [];
  return [...new Set(chain.levels.flatMap((l) => l.roles ?? []))].filter((r) => !ruleRoles.includes(r));
}
