import { NamespaceNotFoundError } from '@temporalio/common';
import { toHttpError } from '../../src/api/errors';
import { guarded, isConnectionError, StoreUnavailableError } from '../../src/store/unavailable';

function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

describe('isConnectionError', () => {
  it.each([
    ['a refused socket', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a name that does not resolve yet', pgError('getaddrinfo EAI_AGAIN db', 'EAI_AGAIN')],
    ['an admin shutdown', pgError('terminating connection due to administrator command', '57P01')],
    ['a server starting up', pgError('the database system is starting up', '57P03')],
    ['a server not yet accepting connections', pgError('the database system is not yet accepting connections')],
    ['too many connections while a restarted server fills up', pgError('sorry, too many clients already', '53300')],
    ['a dropped connection', pgError('Connection terminated unexpectedly')],
    ['a pool that timed out waiting to connect', pgError('timeout exceeded when trying to connect')],
    ['a client that ended', pgError('Client was closed and is not queryable')],
    ['a connection class SQLSTATE', pgError('connection failure', '08006')],
    ['any of them wrapped as a cause', new Error('query failed', { cause: pgError('x', 'ECONNRESET') })],
    ['any of them inside an AggregateError', new AggregateError([pgError('x', 'ECONNREFUSED')])],
  ])('is true for %s', (_name, err) => {
    expect(isConnectionError(err)).toBe(true);
  });

  it.each([
    ['a syntax error', pgError('syntax error at or near "SELEC"', '42601')],
    ['a unique violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['a code that only starts like 53300', pgError('x', '533001')],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['a non-error', 'ECONNREFUSED'],
  ])('is false for %s', (_name, err) => {
    expect(isConnectionError(err)).toBe(false);
  });

  it('stops on a cause chain that loops', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(isConnectionError(a)).toBe(false);
  });
});

describe('the API answer for a store outage', () => {
  it('is 503 database_unavailable for what guarded() throws, also when wrapped', async () => {
    const thrown = await guarded(() => Promise.reject(pgError('the database system is shutting down', '57P03'))).catch(
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(StoreUnavailableError);
    expect(toHttpError(thrown)).toMatchObject({ status: 503, code: 'database_unavailable' });
    expect(toHttpError(new Error('audit write failed', { cause: thrown }))).toMatchObject({
      status: 503,
      code: 'database_unavailable',
    });
  });

  it('is 503 for a raw connection error, and 500 for a bug', () => {
    expect(toHttpError(pgError('Connection terminated unexpectedly'))).toMatchObject({ status: 503 });
    expect(toHttpError(new TypeError('x is undefined'))).toMatchObject({ status: 500, code: 'internal' });
  });

  it('leaves errors that are not about connections as they were', async () => {
    await expect(guarded(() => Promise.reject(pgError('duplicate key', '23505')))).rejects.not.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});

describe('the API answer for a namespace the server does not know right now', () => {
  it('is 503 temporal_unavailable naming the namespace, as while a server refills its cache after a database restart', () => {
    const e = toHttpError(new NamespaceNotFoundError('default'));
    expect(e).toMatchObject({ status: 503, code: 'temporal_unavailable' });
    expect(e.message).toMatch(/'default'.*TEMPORAL_NAMESPACE/);
  });
});
