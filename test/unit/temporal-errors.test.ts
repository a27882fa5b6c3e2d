import { ServiceError } from '@temporalio/client';
import { google } from '@temporalio/proto';
import { explain, isTransientRejection } from '../../src/client/temporal-errors';
import { GateError } from '../../src/client/gate-error';

/** A gRPC status error as grpc-js raises it, wrapped the way the SDK's client rethrows it. */
function grpc(code: number, details: string): ServiceError {
  const cause = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Failed to update workflow', { cause });
}

/** FAILED_PRECONDITION whose status details name `detail`, as the server sends its WorkflowNotReady refusals. */
function withDetail(detail: string, message: string): ServiceError {
  const status = google.rpc.Status.encode({
    code: 9,
    message,
    details: [{ type_url: `type.googleapis.com/${detail}`, value: Buffer.alloc(0) }],
  });
  const bin = Buffer.from(status.finish());
  const metadata = { get: (key: string) => (key === 'grpc-status-details-bin' ? [bin] : []) }; // grpc-js Metadata's reader
  const cause = Object.assign(new Error(`9 FAILED_PRECONDITION: ${message}`), { code: 9, details: message, metadata });
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

  it('retries an update whose workflow task failed before accepting it (WorkflowNotReady), not other failed preconditions', async () => {
    const notReady = withDetail(
      'temporal.api.errordetails.v1.WorkflowNotReadyFailure',
      'Unable to perform workflow execution update due to unexpected workflow task failure.',
    );
    expect(isTransientRejection(notReady)).toBe(true);
    expect(isTransientRejection(withDetail('temporal.api.errordetails.v1.NamespaceNotFoundFailure', 'gone'))).toBe(
      false,
    );
    expect(isTransientRejection(grpc(9, 'failed precondition without details'))).toBe(false);
    // Still refused once the caller's retries are spent: 503, not the API's 500.
    const e = await explain(notReady, 'appr_x', none);
    expect(e).toMatchObject({ status: 503, code: 'gate_unavailable' });
    expect((e as GateError).message).toMatch(/workflow task failed.*decision_id/);
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
