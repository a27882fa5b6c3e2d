import { openSqlite, addColumnIfMissing, type Db } from '../../src/store/db';

// The SQLite seam keeps prepared statements per connection: the same SQL text must keep
// answering correctly across transactions, rollbacks and schema changes.
describe('SQLite prepared statement cache', () => {
  let db: Db;
  beforeEach(async () => {
    db = openSqlite(':memory:');
    await db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
  });
  afterEach(() => db.close());

  it('runs one SQL text many times with different parameters', async () => {
    for (let i = 0; i < 50; i++) await db.run('INSERT INTO t (id, name) VALUES (?, ?)', [i, `n${i}`]);
    const rows = await db.query<{ id: number; name: string }>('SELECT id, name FROM t WHERE id >= ? ORDER BY id', [47]);
    expect(rows).toEqual([
      { id: 47, name: 'n47' },
      { id: 48, name: 'n48' },
      { id: 49, name: 'n49' },
    ]);
    expect((await db.query<{ id: number }>('SELECT id, name FROM t WHERE id >= ? ORDER BY id', [49])).length).toBe(1);
  });

  it('shares statements with transactions, and a rollback leaves no row', async () => {
    const insert = 'INSERT INTO t (id, name) VALUES (?, ?)';
    await db.run(insert, [1, 'outside']);
    await expect(
      db.transaction(async (tx) => {
        await tx.run(insert, [2, 'inside']);
        await tx.run(insert, [1, 'duplicate']); // primary key: throws, the transaction rolls back
      }),
    ).rejects.toThrow(/UNIQUE/);
    await db.transaction(async (tx) => {
      await tx.run(insert, [3, 'committed']);
    });
    expect(await db.query('SELECT id, name FROM t ORDER BY id')).toEqual([
      { id: 1, name: 'outside' },
      { id: 3, name: 'committed' },
    ]);
  });

  it('answers with the new columns after a column is added', async () => {
    await db.run('INSERT INTO t (id, name) VALUES (?, ?)', [1, 'a']);
    expect(await db.query('SELECT * FROM t')).toEqual([{ id: 1, name: 'a' }]);
    expect(await addColumnIfMissing(db, 't', 'extra', "TEXT NOT NULL DEFAULT 'x'")).toBe(true);
    expect(await db.query('SELECT * FROM t')).toEqual([{ id: 1, name: 'a', extra: 'x' }]);
  });

  it('keeps answering once more distinct SQL texts were run than it keeps', async () => {
    for (let i = 0; i < 300; i++) await db.run(`INSERT INTO t (id, name) VALUES (?, '${i}')`, [i]);
    const [row] = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t');
    expect(row!.n).toBe(300);
    expect(await db.query('SELECT name FROM t WHERE id = ?', [299])).toEqual([{ name: '299' }]);
  });
});
