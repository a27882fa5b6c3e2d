import { ServiceError } from '@temporalio/client';
import { explain, isTransientRejection } from '../../src/client/temporal-errors';
import { GateError } from '../../src/client/gate-error';

/** A gRPC status error as grpc-js raises it, wrapped the way the SDK's client rethrows it. */
function grpc(code: number, details: string): ServiceError {
  const cause = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Failed to update workflow', { cause });
}

const none = () => Promise.resolve({ exists: false as const });

describe('how Temporal errors reach callers', () => {
  it('counts in-flight limits and aborted updates as transient, other statuses not', () => {
    expect(isTransientRejection(grpc(8, 'too many outstanding updates'))).toBe(true);
    expect(isTransientRejection(grpc(14, 'update aborted'))).toBe(true);
    expect(isTransientRejection(grpc(13, 'internal'))).toBe(false);
    expect(isTransientRejection(new Error('plain'))).toBe(false);
  });

  it('answers 503 gate_busy, safe to retry, when the limits stay full past the retries', async () => {
    const e = await explain(grpc(8, 'too many outstanding updates'), 'appr_x', none);
    expect(e).toBeInstanceOf(GateError);
    expect(e).toMatchObject({ status: 503, code: 'gate_busy' });
    expect((e as GateError).message).toMatch(/decision_id/);
  });

  it('leaves any other server error to the API (503 temporal_unavailable there)', async () => {
    const err = grpc(13, 'internal');
    await expect(explain(err, 'appr_x', none)).resolves.toBe(err);
  });
});
