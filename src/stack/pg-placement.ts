/**
 * Where the stack's PostgreSQL cluster can live. As root, initdb and postgres run as an
 * unprivileged account (scripts/start-postgres.sh: `postgres`, else `nobody`), which must
 * pass through every directory above the cluster. A private GATE_DATA_DIR (`mktemp -d`,
 * mode 700, owned by root) stops it; the cluster then lives in a directory that account
 * can reach, linked from GATE_DATA_DIR/stack/pg. Pure: the caller stats the directories.
 */

/** A directory as stat sees it. */
export interface DirMode {
  path: string;
  mode: number;
  uid: number;
  gid: number;
}

/** The account PostgreSQL runs as: its uid and every group it is in. */
export interface PgAccount {
  name: string;
  uid: number;
  gids: readonly number[];
}

/**
 * Whether `account` may pass through `d` (search permission, by its mode bits; ACLs are
 * not read, so an ACL that would let it through still counts as blocking, which only
 * moves the cluster).
 */
export function canSearch(d: DirMode, account: PgAccount): boolean {
  if (account.uid === 0) return true;
  if (d.uid === account.uid) return (d.mode & 0o100) !== 0;
  if (account.gids.includes(d.gid)) return (d.mode & 0o010) !== 0;
  return (d.mode & 0o001) !== 0;
}

/** The first of `dirs` (outermost first) that `account` cannot pass through, if any. */
export function firstBlocked(dirs: readonly DirMode[], account: PgAccount): DirMode | undefined {
  return dirs.find((d) => !canSearch(d, account));
}

/** Every directory from `/` down to `dir` (an absolute, resolved path), outermost first. */
export function ancestry(dir: string): string[] {
  const parts = dir.split('/').filter(Boolean);
  return ['/', ...parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`)];
}

/** The cluster in GATE_DATA_DIR/stack/pg itself, or elsewhere because `blocked` stops the account. */
export type PgPlacement = { where: 'data-dir' } | { where: 'elsewhere'; blocked: DirMode };

/**
 * Decides where the cluster lives: in the data dir unless the stack runs as root and the
 * account cannot pass through a directory on the way there (`dirs`: the stack dir's
 * ancestry, outermost first). Not as root, PostgreSQL runs as the caller, who owns the
 * data dir.
 */
export function pgPlacement(f: { root: boolean; account: PgAccount; dirs: readonly DirMode[] }): PgPlacement {
  if (!f.root) return { where: 'data-dir' };
  const blocked = firstBlocked(f.dirs, f.account);
  return blocked ? { where: 'elsewhere', blocked } : { where: 'data-dir' };
}

/**
 * Where to make the cluster's directory instead: the first of `candidates` (each with its
 * own ancestry, outermost first, the candidate last) that the account can reach. The
 * caller lists the account's home (Debian's /var/lib/postgresql, kept across reboots and
 * never cleaned), then /var/tmp and /tmp.
 */
export function relocationBase(
  candidates: readonly { dir: string; dirs: readonly DirMode[] }[],
  account: PgAccount,
): string | undefined {
  return candidates.find((c) => c.dirs.length > 0 && !firstBlocked(c.dirs, account))?.dir;
}

/** What the stack logs when it moves the cluster: which directory stops the account, and where the data went. */
export function relocationNote(account: PgAccount, blocked: DirMode, clusterDir: string, link: string): string {
  const mode = (blocked.mode & 0o777).toString(8).padStart(3, '0');
  return (
    `postgres: user ${account.name} cannot pass through ${blocked.path} (mode ${mode}, owner uid ${blocked.uid}), ` +
    `so the cluster lives in ${clusterDir}, linked from ${link}; ` +
    `remove that directory too when you remove the data dir`
  );
}
