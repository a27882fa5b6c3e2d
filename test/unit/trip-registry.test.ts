import { createDomainRegistry, resolveDomains, UnknownDomainError } from '../../src/domain/registry';
import { createTripDomain, migrateTripStore, tripDomain } from '../../examples/trip';
import type { DomainAdapter } from '../../src/domain/types';
import { openSqlite, type Db } from '../../src/store/db';

let db: Db;
beforeAll(async () => {
  db = openSqlite(':memory:');
  await migrateTripStore(db);
});
afterAll(() => db.close());

describe('domain registry', () => {
  it('finds the trip domain and its tools by name', () => {
    const reg = createDomainRegistry([createTripDomain(db)]);
    expect(reg.names()).toEqual(['trip']);
    expect(reg.get('trip').name).toBe('trip');
    expect(reg.findTool('trip', 'submit_trip_request')).toMatchObject({ risk: 'change', action: 'trip.submit' });
    expect(reg.findTool('trip', 'search_trip_policy')).toMatchObject({ risk: 'read', action: 'trip.search_policy' });
  });

  it('builds factories over the given store and registers ready adapters beside them', async () => {
    const own: DomainAdapter = { ...createTripDomain(db), name: 'refunds', tools: [] };
    const fresh = openSqlite(':memory:');
    try {
      const reg = await resolveDomains([tripDomain, own], { db: fresh });
      expect(reg.names()).toEqual(['trip', 'refunds']);
      // The trip factory migrated its tables in the store it was given.
      expect(await fresh.query('SELECT COUNT(*) AS n FROM trip_drafts')).toEqual([{ n: 0 }]);
      await expect(resolveDomains([tripDomain, tripDomain], { db: fresh })).rejects.toThrow(
        'domain "trip" is registered twice',
      );
    } finally {
      await fresh.close();
    }
  });

  it('throws a clear error for an unknown domain', () => {
    const reg = createDomainRegistry([createTripDomain(db)]);
    expect(() => reg.get('hotel')).toThrow(UnknownDomainError);
    expect(() => reg.get('hotel')).toThrow('unknown domain "hotel"; registered domains: trip');
    expect(() => reg.findTool('hotel', 'x')).toThrow(/unknown domain "hotel"/);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'submit_trip_request '])(
    'treats the untrusted tool name %j as unknown',
    (name) => {
      const reg = createDomainRegistry([createTripDomain(db)]);
      expect(reg.findTool('trip', name)).toBeUndefined();
    },
  );

  it('does not resolve prototype names as domains', () => {
    const reg = createDomainRegistry([createTripDomain(db)]);
    expect(() => reg.get('__proto__')).toThrow(UnknownDomainError);
    expect(() => reg.get('constructor')).toThrow(UnknownDomainError);
  });

  it('refuses a domain registered twice', () => {
    expect(() => createDomainRegistry([createTripDomain(db), createTripDomain(db)])).toThrow(/registered twice/);
  });

  it('gives every trip tool a strict zod schema that rejects unknown args', () => {
    const reg = createDomainRegistry([createTripDomain(db)]);
    for (const tool of reg.get('trip').tools) {
      expect(tool.description.length).toBeGreaterThan(20);
      expect(tool.args.safeParse({ surprise: 1 }).success).toBe(false);
    }
  });
});
