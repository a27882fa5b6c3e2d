import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTripDomain, listSubmissions, migrateTripStore } from '../../examples/trip';
import { openSqlite } from '../../src/store/db';
import { CRASH_AFTER_SUBMIT_ENV } from '../support/trip-crash-domain';

const root = path.resolve(__dirname, '../..');

/**
 * A child process drafts, validates and submits with the crash marker set; it must die
 * by SIGKILL after the submission committed. A retry with the same key then returns
 * the committed output and writes nothing: the crash-safety a Temporal retry relies on.
 */
describe('crash after a committed submission', () => {
  it('dies once after the commit, and the retry with the same key submits nothing new', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trip-crash-'));
    const file = path.join(dir, 'trip.db');
    const marker = path.join(dir, 'crash-once');
    fs.writeFileSync(marker, '');
    const script = `
      const { openSqlite } = require('./src/store/db');
      const { createTripDomain, migrateTripStore } = require('./examples/trip');
      const { crashAfterSubmit } = require('./test/support/trip-crash-domain');
      (async () => {
        const db = openSqlite(${JSON.stringify(file)});
        await migrateTripStore(db);
        const trip = crashAfterSubmit(createTripDomain(db));
        await trip.execute('run_c', 'draft_trip_request', { destination: 'Busan', days: 2, budget: 800000 }, 'k_draft');
        await trip.execute('run_c', 'validate_trip_request', {}, 'k_val');
        const plan = await trip.plan('run_c', 'submit_trip_request', {});
        require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'input.json'))}, JSON.stringify(plan.input));
        await trip.execute('run_c', 'submit_trip_request', plan.input, 'appr_crash');
        console.log('survived');
      })();`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: root,
      env: { ...process.env, [CRASH_AFTER_SUBMIT_ENV]: marker },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ signal: child.signal, stdout: child.stdout, stderr: child.stderr }).toMatchObject({
      signal: 'SIGKILL',
      stdout: '',
    });
    expect(fs.existsSync(marker)).toBe(false);

    const db = openSqlite(file);
    try {
      await migrateTripStore(db);
      const committed = await listSubmissions(db);
      expect(committed).toMatchObject([{ budget: 800_000, request_id: 'appr_crash' }]);
      const input = JSON.parse(fs.readFileSync(path.join(dir, 'input.json'), 'utf8'));
      const retried = await createTripDomain(db).execute('run_c', 'submit_trip_request', input, 'appr_crash');
      expect(retried.values).toMatchObject({ submission_id: committed[0]!.submission_id });
      expect(await listSubmissions(db)).toHaveLength(1);
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
