import fs from 'node:fs';

/**
 * The production suite's stack (test/production/global-setup.ts writes it): the e2e API
 * tests then drive the stack's API, workers and PostgreSQL instead of an in-process API.
 */
export interface StackTarget {
  /** `gate stack up --json`, as printed. */
  info: {
    api_url: string;
    temporal_address: string;
    database_url: string;
    pids: { postgres: number; temporal: number; workers: number[]; api: number };
  };
  /** The environment `gate stack` ran with (GATE_DATA_DIR, ports, webhooks), for further `gate` commands. */
  env: Record<string, string>;
  taskQueue: string;
  namespace: string;
  /** Keys created in the stack's key store, by `kind:id`. */
  keys: Record<string, string>;
  /** Where the webhook receiver appends each delivery as one JSON line. */
  webhookLog: string;
  webhookSecret: string;
}

export const STACK_TARGET_ENV = 'GATE_STACK_TARGET';

/** The stack under test, when the production suite runs; undefined otherwise. */
export function stackTarget(): StackTarget | undefined {
  const file = process.env[STACK_TARGET_ENV];
  return file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as StackTarget) : undefined;
}

/** A key the global setup created; throws when the test asks for one it did not. */
export function targetKey(t: StackTarget, kind: 'agent' | 'reviewer', id: string): string {
  const key = t.keys[`${kind}:${id}`];
  if (!key) throw new Error(`the production setup created no ${kind} key "${id}"; add it to test/production/keys.ts`);
  return key;
}
