import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlite } from '../../src/store/db';

// `gate dev` opens gate.db for its API and for its worker in one process. better-sqlite3 is
// synchronous, so two connections there would deadlock the thread on a write that meets
// the other's open transaction; openSqlite gives one process one connection per file.
describe('one SQLite file opened twice in one process', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-sqlite-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("takes a write from one opener while the other's transaction awaits between statements", async () => {
    const file = path.join(dir, 'gate.db');
    const api = openSqlite(file);
    fs.symlinkSync(dir, path.join(dir, 'link'));
    const worker = openSqlite(path.join(dir, 'link', '..', 'link', 'gate.db')); // the same file, reached another way
    try {
      await api.run('CREATE TABLE t (id INTEGER PRIMARY KEY)');
      const started = Date.now();
      await Promise.all([
        api.transaction(async (tx) => {
          await tx.run('INSERT INTO t VALUES (1)');
          await new Promise((r) => setImmediate(r)); // other work runs while the transaction is open
          await tx.run('INSERT INTO t VALUES (2)');
        }),
        worker.run('INSERT INTO t VALUES (3)'),
        worker.transaction(async (tx) => {
          await tx.run('INSERT INTO t VALUES (4)');
        }),
      ]);
      // Two connections waited out the 10 s busy timeout here and failed with "database is locked".
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await worker.query<{ id: number }>('SELECT id FROM t ORDER BY id')).map((r) => r.id)).toEqual([
        1, 2, 3, 4,
      ]);
    } finally {
      await api.close();
      await worker.close();
    }
  });

  it('keeps the file open until its last opener closes it; a closed handle refuses work', async () => {
    const file = path.join(dir, 'gate.db');
    const first = openSqlite(file);
    const second = openSqlite(file);
    await first.run('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    await first.close();
    await first.close(); // twice is harmless
    await expect(first.run('INSERT INTO t VALUES (1)')).rejects.toThrow(/not open/);
    await second.run('INSERT INTO t VALUES (2)');
    await second.close();
    await expect(second.query('SELECT id FROM t')).rejects.toThrow(/not open/);
    const again = openSqlite(file);
    try {
      expect(await again.query('SELECT id FROM t')).toEqual([{ id: 2 }]);
    } finally {
      await again.close();
    }
  });
});
