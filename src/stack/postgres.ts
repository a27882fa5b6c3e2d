import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { PROJECT_ROOT } from '../dev/temporal-cli';
import { PG_DATABASES, PG_ROLE, type StackSettings } from './settings';

/** The cluster's directory (scripts/start-postgres.sh layout: data/, postgres.log, the socket). */
export function pgDir(s: Pick<StackSettings, 'dir'>): string {
  return path.join(s.dir, 'pg');
}

/** The postmaster's pid from its pid file, when the cluster runs. */
export function postgresPid(s: Pick<StackSettings, 'dir'>): number | undefined {
  try {
    const first = fs.readFileSync(path.join(pgDir(s), 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts (initialising on first use) the stack's PostgreSQL with Debian's binaries via
 * scripts/start-postgres.sh, durable (fsync and synchronous commit on) and with the stack's
 * server settings (PG_SERVER_SETTINGS), and returns its pid.
 */
export function startPostgres(s: Pick<StackSettings, 'dir' | 'pgPort' | 'pgSettings'>): number {
  fs.mkdirSync(pgDir(s), { recursive: true });
  const r = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'start-postgres.sh'), pgDir(s), String(s.pgPort)], {
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      GATE_PG_DB: 'postgres',
      GATE_PG_DURABLE: '1',
      GATE_PG_SETTINGS: Object.entries(s.pgSettings)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    },
  });
  if (r.status === 3)
    throw new Error(`PostgreSQL's server binaries are missing: apt-get install postgresql\n${r.stderr}`);
  if (r.status !== 0) throw new Error(`PostgreSQL did not start (exit ${r.status}):\n${r.stderr}`);
  const pid = postgresPid(s);
  if (!pid) throw new Error(`PostgreSQL started but wrote no postmaster.pid in ${pgDir(s)}`);
  return pid;
}

/** Stops the stack's PostgreSQL and keeps its data (`mode`: fast for `down`, immediate for chaos). */
export function stopPostgres(s: Pick<StackSettings, 'dir'>, mode: 'fast' | 'immediate' = 'fast'): void {
  const data = path.join(pgDir(s), 'data');
  if (!fs.existsSync(path.join(data, 'postmaster.pid'))) return;
  const version = fs.readFileSync(path.join(data, 'PG_VERSION'), 'utf8').trim();
  const pgCtl = path.join(process.env.PG_BIN ?? `/usr/lib/postgresql/${version}/bin`, 'pg_ctl');
  const owner = fs.statSync(data).uid;
  const args = ['-D', data, '-m', mode, '-w', '-t', '60', 'stop'];
  const r =
    process.getuid?.() === 0 && owner !== 0
      ? spawnSync('runuser', ['-u', ownerName(owner), '--', pgCtl, ...args], { encoding: 'utf8' })
      : spawnSync(pgCtl, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${r.stderr}`);
}

function ownerName(uid: number): string {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[2] === String(uid));
  return line?.split(':')[0] ?? String(uid);
}

/** The superuser's URL (trust auth on 127.0.0.1, as start-postgres.sh sets it up). */
function adminUrl(s: Pick<StackSettings, 'pgPort'>): string {
  return `postgresql://postgres@127.0.0.1:${s.pgPort}/postgres`;
}

/** Creates the `temporal` role (may create databases, for the sql tool) and the gate's database. Idempotent. */
export async function ensureRoleAndGateDb(s: Pick<StackSettings, 'pgPort'>): Promise<void> {
  const c = new Client({ connectionString: adminUrl(s) });
  await c.connect();
  try {
    const role = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [PG_ROLE.user]);
    if (role.rowCount === 0) await c.query(`CREATE ROLE ${PG_ROLE.user} LOGIN CREATEDB PASSWORD '${PG_ROLE.password}'`);
    const db = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [PG_DATABASES.gate]);
    if (db.rowCount === 0) await c.query(`CREATE DATABASE ${PG_DATABASES.gate} OWNER ${PG_ROLE.user}`);
  } finally {
    await c.end();
  }
}

/** True when `db` exists (the sql tool's create-database is not idempotent). */
export async function databaseExists(s: Pick<StackSettings, 'pgPort'>, db: string): Promise<boolean> {
  const c = new Client({ connectionString: adminUrl(s) });
  await c.connect();
  try {
    return ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount ?? 0) > 0;
  } finally {
    await c.end();
  }
}

/** True when PostgreSQL answers a query. */
export async function postgresAnswers(s: Pick<StackSettings, 'pgPort'>): Promise<boolean> {
  const c = new Client({ connectionString: adminUrl(s), connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}
