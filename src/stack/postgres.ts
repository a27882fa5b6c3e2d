import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { PROJECT_ROOT } from '../dev/temporal-cli';
import { ancestry, pgPlacement, relocationBase, relocationNote, type DirMode, type PgAccount } from './pg-placement';
import { PG_DATABASES, PG_ROLE, type StackSettings } from './settings';

/**
 * The cluster's directory as the stack names it (scripts/start-postgres.sh layout: data/,
 * postgres.log, the socket): GATE_DATA_DIR/stack/pg, or a link there to the directory the
 * cluster lives in when PostgreSQL's account cannot reach the data dir (see `clusterDir`).
 */
export function pgDir(s: Pick<StackSettings, 'dir'>): string {
  return path.join(s.dir, 'pg');
}

/** Where the cluster really is: `pgDir` with its link followed, the path PostgreSQL's own account must use. */
export function clusterDir(s: Pick<StackSettings, 'dir'>): string {
  try {
    return fs.realpathSync(pgDir(s));
  } catch {
    return pgDir(s);
  }
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
 * server settings (PG_SERVER_SETTINGS), and returns its pid. As root with a data dir that
 * PostgreSQL's account cannot reach (a private `mktemp -d`), the cluster lives elsewhere
 * (`preparePgDir`), which `log` says.
 */
export function startPostgres(
  s: Pick<StackSettings, 'dir' | 'pgPort' | 'pgSettings'>,
  log: (line: string) => void = () => undefined,
): number {
  const dir = preparePgDir(s, log);
  const r = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'start-postgres.sh'), dir, String(s.pgPort)], {
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
  if (!pid) throw new Error(`PostgreSQL started but wrote no postmaster.pid in ${dir}`);
  return pid;
}

/**
 * Makes `pgDir` ready and returns the directory to give start-postgres.sh. A link made by
 * an earlier `up` is followed. Otherwise, as root, when PostgreSQL's account cannot pass
 * through a directory above the data dir, the cluster gets a directory of its own where
 * that account can reach it (its home, else /var/tmp or /tmp), linked from `pgDir` so
 * `down`, `status` and the next `up` find it; the parents of the data dir stay as they are.
 */
export function preparePgDir(s: Pick<StackSettings, 'dir'>, log: (line: string) => void): string {
  const link = pgDir(s);
  fs.mkdirSync(s.dir, { recursive: true });
  const existing = fs.lstatSync(link, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink()) {
    if (!fs.existsSync(link))
      throw new Error(
        `the stack's PostgreSQL data in ${fs.readlinkSync(link)} (linked from ${link}) is gone; remove the link to start an empty cluster`,
      );
    return fs.realpathSync(link);
  }
  const root = process.getuid?.() === 0;
  const account = root ? pgAccount() : undefined;
  const placement = account
    ? pgPlacement({ root, account, dirs: ancestry(fs.realpathSync(s.dir)).map(statDir) })
    : ({ where: 'data-dir' } as const);
  if (placement.where === 'data-dir' || !account) {
    fs.mkdirSync(link, { recursive: true });
    return link;
  }
  if (existing) {
    // An empty directory is what a start refused before this existed left; a cluster in it cannot run.
    if (fs.readdirSync(link).length > 0)
      throw new Error(
        `user ${account.name} cannot reach the PostgreSQL cluster in ${link} (${placement.blocked.path} is not traversable); ` +
          `make the data dir's parents traversable (chmod o+x) or move the cluster`,
      );
    fs.rmdirSync(link);
  }
  const base = relocationBase(
    [account.home, '/var/tmp', '/tmp']
      .filter((d): d is string => Boolean(d) && fs.existsSync(d!))
      .map((d) => ({ dir: d, dirs: ancestry(fs.realpathSync(d)).map(statDir) })),
    account,
  );
  if (!base) throw new Error(`user ${account.name} can reach neither its home, /var/tmp nor /tmp`);
  const target = fs.mkdtempSync(path.join(base, 'approval-gate-stack-pg-'));
  // Whose cluster this is, for whoever finds it later; start-postgres.sh hands the directory to the account.
  fs.writeFileSync(path.join(target, 'linked-from'), `${link}\n`);
  fs.symlinkSync(target, link);
  log(relocationNote(account, placement.blocked, target, link));
  return target;
}

function statDir(p: string): DirMode {
  const st = fs.statSync(p);
  return { path: p, mode: st.mode, uid: st.uid, gid: st.gid };
}

/** The account start-postgres.sh runs PostgreSQL as when started by root: `postgres`, else `nobody`. */
function pgAccount(): PgAccount & { home?: string } {
  const users = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((l) => l.split(':'));
  const user = users.find((u) => u[0] === 'postgres') ?? users.find((u) => u[0] === 'nobody');
  if (!user) throw new Error('neither user postgres nor nobody exists to run PostgreSQL as');
  const [name, , uid, gid, , home] = user as [string, string, string, string, string, string];
  const groups = fs
    .readFileSync('/etc/group', 'utf8')
    .split('\n')
    .map((l) => l.split(':'))
    .filter((g) => (g[3] ?? '').split(',').includes(name))
    .map((g) => Number(g[2]));
  return { name, uid: Number(uid), gids: [Number(gid), ...groups], home };
}

/** Stops the stack's PostgreSQL and keeps its data (`mode`: fast for `down`, immediate for chaos). */
export function stopPostgres(s: Pick<StackSettings, 'dir'>, mode: 'fast' | 'immediate' = 'fast'): void {
  // The real path: PostgreSQL's own account may not pass through the data dir that links to it.
  const data = path.join(clusterDir(s), 'data');
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
