import {
  ancestry,
  canSearch,
  pgPlacement,
  relocationBase,
  relocationNote,
  type DirMode,
  type PgAccount,
} from '../../src/stack/pg-placement';

const postgres: PgAccount = { name: 'postgres', uid: 105, gids: [110, 111] };
const dir = (path: string, mode: number, uid = 0, gid = 0): DirMode => ({ path, mode: 0o040000 | mode, uid, gid });

/** `gate stack up` as root with GATE_DATA_DIR=$(mktemp -d): /tmp/tmp.X is mode 700, owned by root. */
const privateDataDir = [dir('/', 0o755), dir('/tmp', 0o1777), dir('/tmp/tmp.X', 0o700), dir('/tmp/tmp.X/stack', 0o755)];

describe('where the stack keeps its PostgreSQL cluster', () => {
  it('lists a directory and every directory above it, outermost first', () => {
    expect(ancestry('/tmp/tmp.X/stack')).toEqual(['/', '/tmp', '/tmp/tmp.X', '/tmp/tmp.X/stack']);
    expect(ancestry('/')).toEqual(['/']);
  });

  it('reads search permission from the owner, group or other bits that apply to the account', () => {
    expect(canSearch(dir('/d', 0o700), postgres)).toBe(false);
    expect(canSearch(dir('/d', 0o701), postgres)).toBe(true);
    expect(canSearch(dir('/d', 0o710, 0, 111), postgres)).toBe(true); // a supplementary group
    expect(canSearch(dir('/d', 0o701, 0, 111), postgres)).toBe(false); // the group bits apply, not other's
    expect(canSearch(dir('/d', 0o100, 105), postgres)).toBe(true);
    expect(canSearch(dir('/d', 0o077, 105), postgres)).toBe(false); // the owner's bits apply
  });

  it('moves the cluster out of a private data dir when root runs the stack, naming the directory that blocks', () => {
    const p = pgPlacement({ root: true, account: postgres, dirs: privateDataDir });
    expect(p).toEqual({ where: 'elsewhere', blocked: privateDataDir[2] });
  });

  it('keeps the cluster in the data dir when the account can reach it, or when the stack does not run as root', () => {
    const open = privateDataDir.map((d) => (d.path === '/tmp/tmp.X' ? dir(d.path, 0o711) : d));
    expect(pgPlacement({ root: true, account: postgres, dirs: open })).toEqual({ where: 'data-dir' });
    // Not as root, PostgreSQL runs as the caller, who owns the data dir.
    expect(pgPlacement({ root: false, account: postgres, dirs: privateDataDir })).toEqual({ where: 'data-dir' });
  });

  it("puts a moved cluster under the account's home, else the first shared temp dir it can reach", () => {
    const home = {
      dir: '/var/lib/postgresql',
      dirs: [dir('/', 0o755), dir('/var', 0o755), dir('/var/lib', 0o755), dir('/var/lib/postgresql', 0o755, 105)],
    };
    const varTmp = { dir: '/var/tmp', dirs: [dir('/', 0o755), dir('/var', 0o755), dir('/var/tmp', 0o1777)] };
    const tmp = { dir: '/tmp', dirs: [dir('/', 0o755), dir('/tmp', 0o1777)] };
    expect(relocationBase([home, varTmp, tmp], postgres)).toBe('/var/lib/postgresql');
    const lockedHome = { ...home, dirs: [...home.dirs.slice(0, 3), dir('/var/lib/postgresql', 0o700, 0)] };
    expect(relocationBase([lockedHome, varTmp, tmp], postgres)).toBe('/var/tmp');
    expect(relocationBase([lockedHome], postgres)).toBeUndefined();
  });

  it('says which directory blocks the account and where the data went', () => {
    const note = relocationNote(
      postgres,
      privateDataDir[2]!,
      '/var/lib/postgresql/approval-gate-stack-pg-a1',
      '/tmp/tmp.X/stack/pg',
    );
    expect(note).toContain('user postgres cannot pass through /tmp/tmp.X (mode 700');
    expect(note).toContain('lives in /var/lib/postgresql/approval-gate-stack-pg-a1, linked from /tmp/tmp.X/stack/pg');
  });
});
