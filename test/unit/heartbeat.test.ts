import { MockActivityEnvironment } from '@temporalio/testing';
import { withHeartbeat } from '../../src/worker/activities/heartbeat';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('withHeartbeat', () => {
  it('heartbeats while the operation runs inside an activity, and stops when it ends', async () => {
    const env = new MockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const out = await env.run(() => withHeartbeat(() => sleep(260).then(() => 'done'), 50));
    expect(out).toBe('done');
    expect(beats).toBeGreaterThanOrEqual(3);
    const after = beats;
    await sleep(150);
    expect(beats).toBe(after);
  });

  it('passes a failure through and stops heartbeating', async () => {
    const env = new MockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    await expect(
      env.run(() => withHeartbeat(() => sleep(120).then(() => Promise.reject(new Error('model down'))), 30)),
    ).rejects.toThrow('model down');
    const after = beats;
    expect(after).toBeGreaterThan(0);
    await sleep(100);
    expect(beats).toBe(after);
  });

  it('just runs the operation outside an activity', async () => {
    await expect(withHeartbeat(() => Promise.resolve(42))).resolves.toBe(42);
  });
});
