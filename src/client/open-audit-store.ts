import path from 'node:path';
import { AuditStore } from '../store/audit-store';
import { openDb } from '../store/db';

/** Which store: the one the gate's workers write (their GATE_DATABASE_URL, else GATE_DATA_DIR). */
export interface OpenAuditStoreOptions {
  /** A PostgreSQL URL (the workers' `GATE_DATABASE_URL`); wins over `dataDir`. */
  databaseUrl?: string;
  /** The workers' `GATE_DATA_DIR`: the store is its `gate.db` (SQLite). */
  dataDir?: string;
}

/** An audit store this caller opened, and closes. */
export type OpenedAuditStore = AuditStore & {
  /** Closes the store's connection (a SQLite file shared in this process stays open for its other users). */
  close(): Promise<void>;
};

/**
 * Opens the gate's audit store as the API does, and migrates it, for
 * `new GateClient(client, { taskQueue, audit, webhookReceivers: 0 })`: with it the client
 * writes the audit events of what it creates, decides and consumes, and each gate
 * schedules no store activity for them (see GateClientOptions.webhookReceivers). Give it
 * the store the gate's workers write, or the trail is split between two stores. Throws
 * when neither option is set, or when the store cannot be opened or migrated.
 */
export async function openAuditStore(options: OpenAuditStoreOptions): Promise<OpenedAuditStore> {
  if (!options.databaseUrl && !options.dataDir)
    throw new TypeError('openAuditStore: set databaseUrl (GATE_DATABASE_URL) or dataDir (GATE_DATA_DIR)');
  const db = openDb({
    databaseUrl: options.databaseUrl,
    sqliteFile: path.join(options.dataDir ?? '', 'gate.db'),
  });
  const store = new AuditStore(db);
  try {
    await store.migrate();
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return Object.assign(store, { close: () => db.close() });
}
