import { waitForTemporal } from '../../src/dev/temporal-cli';

// Port 1 on loopback has no listener: every probe is refused, so no server is needed.
describe('waitForTemporal', () => {
  it('gives up after its timeout with the last connection error', async () => {
    const t0 = Date.now();
    await expect(waitForTemporal('127.0.0.1:1', 800)).rejects.toThrow(
      /Temporal at 127\.0\.0\.1:1 did not become ready \(waited 800 ms\): .+/,
    );
    expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
  });

  it('stops at once when the server process has exited', async () => {
    const t0 = Date.now();
    await expect(waitForTemporal('127.0.0.1:1', 30_000, () => true)).rejects.toThrow(/exited before it was ready/);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
