import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Pool, type PoolClient } from 'pg';
import { guarded, StoreUnavailableError } from './unavailable';

/**
 * The one SQL seam of every store (audit, keys, domain). SQL is written once with `?`
 * placeholders in the common subset of SQLite and PostgreSQL; the PostgreSQL side
 * numbers them. SQLite is the embedded default, PostgreSQL the production store.
 */
export interface Db {
  readonly dialect: 'sqlite' | 'postgres';
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<{ changes: number }>;
  /** Runs `fn` in one transaction; rolls back if it throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Column names of a table (empty when there is no such table). */
export async function columnsOf(db: Db, table: string): Promise<Set<string>> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.query<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, [table])
      : await db.query<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`,
          [table],
        );
  return new Set(rows.map((r) => String(r.name)));
}

/**
 * `ALTER TABLE ... ADD COLUMN` unless the column exists: the migration step of a table
 * that grows (SQLite has no `ADD COLUMN IF NOT EXISTS`). `table`, `column` and `ddl`
 * are the caller's constants, never input. Run it inside `migrateUnderLock`, which keeps
 * two processes from adding the same column at once; outside it, the loser of such a race
 * takes its duplicate-column error as done.
 */
export async function addColumnIfMissing(db: Db, table: string, column: string, ddl: string): Promise<boolean> {
  if ((await columnsOf(db, table)).has(column)) return false;
  try {
    await db.run(`ALTER TABLE ${table} ADD COLUMN ${column} ${ddl}`);
    return true;
  } catch (err) {
    // Inside a PostgreSQL transaction the failed ALTER aborted it: the original error is the one to report.
    const added = await columnsOf(db, table).then(
      (cols) => cols.has(column),
      () => false,
    );
    if (added) return false;
    throw err;
  }
}

/**
 * The PostgreSQL advisory lock of each store's migration. A store keeps its number for
 * good, so that processes of two releases starting together still take turns.
 */
export const PG_MIGRATION_LOCK = {
  conversations: 7_262_002,
  audit: 7_262_003,
  keys: 7_262_004,
  grants: 7_262_005,
} as const;

/**
 * Runs a store's migration. On PostgreSQL in one transaction, under the store's advisory
 * lock: processes that start together (the API and the workers of `gate stack`) take
 * turns, because `IF NOT EXISTS` alone still collides on PostgreSQL's catalog when two
 * sessions create the same table or index at once (a duplicate key in `pg_class`), and a
 * trigger dropped and created again is never missing in between. On SQLite each statement
 * runs on its own: each takes the file's write lock and checks `IF NOT EXISTS` under it, so
 * connections never collide, whereas a transaction held across the migration's awaits would
 * make another connection of the same process wait for a lock its own thread holds.
 */
export async function migrateUnderLock(db: Db, lock: number, migrate: (tx: Db) => Promise<void>): Promise<void> {
  if (db.dialect === 'sqlite') return migrate(db);
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(?)', [lock]);
    await migrate(tx);
  });
}

/** Opens PostgreSQL when `databaseUrl` is set, otherwise SQLite at `sqliteFile`. */
export function openDb(opts: { databaseUrl?: string; sqliteFile: string }): Db {
  return opts.databaseUrl ? new PostgresDb(openPool(opts.databaseUrl)) : openSqlite(opts.sqliteFile);
}

/**
 * A pool that survives a database restart. When the server goes away, every idle client
 * emits 'error'; without a listener that event kills the process (an API or worker
 * crash on a PostgreSQL restart, found by the chaos program). The pool drops such a
 * client by itself and the next query opens a new one, so the listener only notes it.
 */
function openPool(connectionString: string): Pool {
  const pool = new Pool({ connectionString, max: 5 });
  pool.on('error', (err) => {
    if (process.env.GATE_LOG_LEVEL !== 'silent')
      console.error(`store: idle PostgreSQL connection lost (${err.message})`);
  });
  return pool;
}

/** The open SQLite files of this process, by absolute path: one connection each (see `openSqlite`). */
const sqliteFiles = new Map<string, { db: SqliteDb; users: number }>();

/**
 * A SQLite store. Each file has one connection per process, shared by every caller that
 * opens it (`gate dev` runs the API and the worker in one process, both on `gate.db`), and
 * closed when the last of them closes it. better-sqlite3 is synchronous: with a second
 * connection, a write that met the first one's open transaction would wait out the busy
 * timeout on the very thread that must finish that transaction, freezing the process for
 * 10 s and then failing with "database is locked". On one connection the transactions and
 * statements of all callers take turns instead. Other processes sharing the file (a
 * separate `gate api`, the CLI) wait for its lock through the busy timeout.
 */
export function openSqlite(file: string): Db {
  if (file === ':memory:') return new SqliteDb(connectSqlite(file));
  const dir = path.dirname(path.resolve(file));
  fs.mkdirSync(dir, { recursive: true });
  // The directory's real path: the same file reached through a symbolic link is the same file.
  const key = path.join(fs.realpathSync(dir), path.basename(file));
  let open = sqliteFiles.get(key);
  if (!open) {
    open = { db: new SqliteDb(connectSqlite(key)), users: 0 };
    sqliteFiles.set(key, open);
  }
  open.users++;
  const shared = open;
  let closed = false;
  /** A closed handle refuses work as a closed connection does, whoever else still has the file open. */
  const live = (): SqliteDb => {
    if (closed) throw new TypeError('The database connection is not open');
    return shared.db;
  };
  return {
    dialect: 'sqlite',
    query: async (sql, params) => live().query(sql, params),
    run: async (sql, params) => live().run(sql, params),
    transaction: async (fn) => live().transaction(fn),
    async close() {
      if (closed) return;
      closed = true;
      if (--shared.users > 0) return;
      sqliteFiles.delete(key);
      await shared.db.close();
    },
  };
}

function connectSqlite(file: string): Database.Database {
  const db = new Database(file);
  // WAL + busy timeout: the API, the worker and the CLI may share one file from several processes.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Prepared statements kept per connection; past this many distinct SQL texts the cache starts over. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Statements by SQL text, one cache per connection. Preparing parses and plans the SQL,
 * which cost more than running a one-row insert. DDL is never cached and empties the
 * cache, so no statement outlives the schema it was prepared for.
 */
class StatementCache {
  private readonly byText = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    const hit = this.byText.get(sql);
    if (hit) return hit;
    const stmt = this.db.prepare(sql);
    if (/^\s*(CREATE|ALTER|DROP)\b/i.test(sql)) {
      this.byText.clear();
      return stmt;
    }
    if (this.byText.size >= STATEMENT_CACHE_SIZE) this.byText.clear();
    this.byText.set(sql, stmt);
    return stmt;
  }
}

class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  /** Serialises transactions: one connection, and async code inside them. */
  private lock: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly db: Database.Database,
    private readonly inTx = false,
    private readonly statements = new StatementCache(db),
  ) {}

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (!this.inTx) await this.lock;
    return this.statements.get(sql).all(...params.map(sqliteValue)) as T[];
  }
  async run(sql: string, params: unknown[] = []): Promise<{ changes: number }> {
    if (!this.inTx) await this.lock;
    const stmt = this.statements.get(sql);
    return {
      changes: stmt.reader ? stmt.all(...params.map(sqliteValue)).length : stmt.run(...params.map(sqliteValue)).changes,
    };
  }
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    if (this.inTx) return fn(this);
    const result = this.lock.then(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const out = await fn(new SqliteDb(this.db, true, this.statements));
        this.db.exec('COMMIT');
        return out;
      } catch (err) {
        this.db.exec('ROLLBACK');
        throw err;
      }
    });
    this.lock = result.catch(() => undefined);
    return result;
  }
  async close(): Promise<void> {
    await this.lock;
    this.db.close();
  }
}

function sqliteValue(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v !== null && typeof v === 'object' && !(v instanceof Buffer)) return JSON.stringify(v);
  return v;
}

/** `?` -> `$1, $2…` outside of quoted strings. */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let quoted = false;
  let out = '';
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  return out;
}

type Queryable = Pool | PoolClient;

class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  constructor(
    private readonly pool: Queryable,
    private readonly owned = true,
  ) {}

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const r = await guarded(() => this.pool.query(numberPlaceholders(sql), params.map(pgValue)));
    return r.rows as T[];
  }
  async run(sql: string, params: unknown[] = []): Promise<{ changes: number }> {
    const r = await guarded(() => this.pool.query(numberPlaceholders(sql), params.map(pgValue)));
    return { changes: r.rowCount ?? 0 };
  }
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const pool = this.pool;
    if (!(pool instanceof Pool)) return fn(this);
    const client = await guarded(() => pool.connect());
    let broken: Error | undefined;
    try {
      await guarded(() => client.query('BEGIN'));
      const out = await fn(new PostgresDb(client, false));
      await guarded(() => client.query('COMMIT'));
      return out;
    } catch (err) {
      if (err instanceof StoreUnavailableError) broken = err;
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release(broken); // a client whose connection broke is destroyed, not pooled
    }
  }
  async close(): Promise<void> {
    if (this.owned && this.pool instanceof Pool) await this.pool.end();
  }
}

function pgValue(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && !(v instanceof Buffer) && !(v instanceof Date)) return JSON.stringify(v);
  return v;
}
