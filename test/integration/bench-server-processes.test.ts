import net from 'node:net';
import { spawn } from 'node:child_process';
import { treeCpuMs } from '../../bench/cpu';
import { listenerPid, serverProcesses } from '../../bench/server-processes';

// Real sockets and processes (Linux /proc), no Temporal: what lets the bench count a
// server it did not start (gate stack's, on TEMPORAL_ADDRESS) as it counts the dev server.
describe('server processes found from /proc', () => {
  let srv: net.Server;
  let port: number;
  beforeAll(async () => {
    srv = net.createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    port = (srv.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => srv.close(() => r())));

  it('finds the process listening on an address of this host', () => {
    expect(listenerPid(port)).toBe(process.pid);
    expect(serverProcesses(`127.0.0.1:${port}`, [])).toEqual([{ pid: process.pid, role: `listening on ${port}` }]);
  });

  it('finds none for a port nobody listens on or a host elsewhere, and refuses a pid that is not running', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(listenerPid(free)).toBeUndefined();
    expect(serverProcesses(`temporal.example.com:${port}`, [])).toEqual([]);
    expect(() => serverProcesses(undefined, [2 ** 22 + 12345])).toThrow(/not running/);
  });

  it("counts a tree's CPU, children that have exited included", async () => {
    const before = treeCpuMs([process.pid]);
    // A child that burns 300 ms of CPU (its own clock, whatever the load) and exits: its time must show in the parent's tree.
    const burn =
      'const c = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; const t = c(); while (c() - t < 300);';
    const child = spawn(process.execPath, ['-e', burn]);
    await new Promise((r) => child.once('exit', r));
    const after = treeCpuMs([process.pid]);
    expect(after - before).toBeGreaterThanOrEqual(200);
    expect(treeCpuMs([])).toBeNaN();
  });
});
