import { randomUUID } from 'node:crypto';
import { chainEvent, type AuditEvent } from '../common/audit';
import type { AuditStore } from './audit-store';

/** What a key event is about: one key holder's key of one kind. */
export interface KeyRef {
  kind: string;
  id: string;
  tenant?: string;
}

/** The audit chain of one key holder: `key:<kind>:<id>`, verified like a request's trail. */
export function keyTrailId(ref: KeyRef): string {
  return `key:${ref.kind}:${ref.id}`;
}

/**
 * Appends a key event (`key.created`, `key.rotated`, `key.revoked`, ...) to the key's own
 * hash chain in the audit store. Two writers at once (a CLI and an API process) can race for
 * the next position; the loser reads the chain again and retries, so no event is lost.
 */
export async function recordKeyEvent(
  audit: AuditStore,
  ref: KeyRef,
  eventType: string,
  actor: { actor_type: AuditEvent['actor_type']; actor_id: string },
  data: Record<string, unknown> = {},
  note?: string,
): Promise<AuditEvent> {
  const requestId = keyTrailId(ref);
  for (let attempt = 0; ; attempt++) {
    const trail = await audit.list(requestId);
    const event = chainEvent(trail[trail.length - 1], {
      event_id: randomUUID(),
      request_id: requestId,
      event_type: eventType,
      ...actor,
      payload_sha256: null,
      note: note ?? null,
      timestamp: new Date().toISOString(),
      data: { kind: ref.kind, id: ref.id, ...(ref.tenant ? { tenant: ref.tenant } : {}), ...data },
    });
    try {
      await audit.append(event);
      return event;
    } catch (err) {
      if (attempt >= 4 || !/unique|duplicate/i.test(String((err as Error).message))) throw err;
    }
  }
}
