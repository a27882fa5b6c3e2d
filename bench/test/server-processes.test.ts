import { addCpu, medianCpu, perUnit, threadGroup, workerThreadGroup } from '../cpu';
import { BenchUsageError, loadBenchConfig } from '../config';
import { isLocalHost, listeningInodes } from '../server-processes';

// Two listeners (ports 0x22B7 = 8887 and 0x1E35 = 7733) and a connection from 7733 that is not one.
const TCP = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:22B7 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 825007 1 0000 100 0 0 10 0',
  '   1: 0100007F:1E35 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 841006 2 0000 100 0 0 10 0',
  '   2: 0100007F:1E35 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 841999 1 0000 20 4 30 10 -1',
  '   3: 0100007F:C350 0100007F:1E35 06 00000000:00000000 03:00000D5F 00000000     0        0 0 3 0000',
].join('\n');
const TCP6 = [
  '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 00000000000000000000000000000000:1E35 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 900001 1 0000 100 0 0 10 0',
].join('\n');

describe('the bench finds the server it measures', () => {
  it('reads the listening sockets of a port from /proc/net/tcp and tcp6, not its connections', () => {
    expect(listeningInodes(TCP, 7733)).toEqual(['841006']);
    expect(listeningInodes(TCP, 8887)).toEqual(['825007']);
    expect(listeningInodes(TCP6, 7733)).toEqual(['900001']);
    expect(listeningInodes(TCP, 50000)).toEqual([]); // only a TIME_WAIT connection (inode 0) uses it
    expect(listeningInodes('', 7733)).toEqual([]);
  });

  it('counts only addresses of this machine as local', () => {
    for (const h of ['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0', '127.0.1.1'])
      expect(isLocalHost(h)).toBe(true);
    for (const h of ['temporal.example.com', '10.255.255.1', '8.8.8.8']) expect(isLocalHost(h)).toBe(false);
  });

  it('takes BENCH_SERVER_PIDS as comma-separated pids and refuses anything else', () => {
    expect(loadBenchConfig({}).serverPids).toEqual([]);
    expect(loadBenchConfig({ BENCH_SERVER_PIDS: '21057, 300' }).serverPids).toEqual([21057, 300]);
    for (const bad of ['postgres', '12,', '-4', '1.5'])
      expect(() => loadBenchConfig({ BENCH_SERVER_PIDS: bad })).toThrow(BenchUsageError);
  });
});

describe('the overhead section clients (BENCH_CLIENT)', () => {
  it('defaults to how the project runs the API on each server, and refuses other values', () => {
    expect(loadBenchConfig({}).client).toBe('worker'); // embedded dev server: gate dev's one process
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7733' }).client).toBe('own'); // gate stack: an API process of its own
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7733', BENCH_CLIENT: 'worker' }).client).toBe('worker');
    expect(loadBenchConfig({ BENCH_CLIENT: 'own' }).client).toBe('own');
    expect(loadBenchConfig({}).bareStacks).toBe('sdk'); // the baselines run as a bare worker does
    expect(loadBenchConfig({ BENCH_BARE_STACKS: 'gate' }).bareStacks).toBe('gate');
    expect(() => loadBenchConfig({ BENCH_BARE_STACKS: 'none' })).toThrow(/BENCH_BARE_STACKS=none must be sdk or gate/);
    expect(() => loadBenchConfig({ BENCH_CLIENT: 'grpc' })).toThrow(/BENCH_CLIENT=grpc must be worker or own/);
  });
});

describe('the bench process split by thread (cpu_threads)', () => {
  it('names the main thread, the SDK threads, Node helpers started first and workflow threads started later', () => {
    const early = new Set([11, 12]);
    expect(threadGroup(10, 'node', 10, early)).toBe('main');
    expect(threadGroup(11, 'node', 10, early)).toBe('helpers');
    expect(threadGroup(20, 'tokio-runtime-w', 10, early)).toBe('core');
    expect(threadGroup(21, 'workflow-proces', 10, early)).toBe('core');
    expect(threadGroup(30, 'node', 10, early)).toBe('workflow');
  });

  it("tells a worker process's threads apart by their ids: Node threads before the SDK's first are helpers", () => {
    expect(workerThreadGroup(100, 'node', 100, 120)).toBe('main');
    expect(workerThreadGroup(103, 'node', 100, 120)).toBe('helpers');
    expect(workerThreadGroup(120, 'tokio-runtime-w', 100, 120)).toBe('core');
    expect(workerThreadGroup(131, 'workflow-proces', 100, 120)).toBe('core');
    expect(workerThreadGroup(127, 'node', 100, 120)).toBe('workflow');
    // No SDK thread yet: every other Node thread is one of Node's own.
    expect(workerThreadGroup(127, 'node', 100, undefined)).toBe('helpers');
  });

  it("sums and divides the worker's split with the rest of a reading", () => {
    const acc = { bench: 0, server: 0 };
    const workerThreads = { main: 4, workflow: 6, core: 2, helpers: 1 };
    addCpu(acc, { bench: 1, server: 2, worker: 13, workerThreads });
    addCpu(acc, { bench: 1, server: 2, worker: 13, workerThreads });
    expect(perUnit(acc, 2)).toEqual({ bench: 1, server: 2, worker: 13, workerThreads });
  });

  it('divides every figure of a reading per unit of work, and takes medians group by group', () => {
    const threads = { main: 40, workflow: 20, core: 10, helpers: 30 };
    expect(perUnit({ bench: 100, server: 50, worker: 8, threads }, 10)).toEqual({
      bench: 10,
      server: 5,
      worker: 0.8,
      threads: { main: 4, workflow: 2, core: 1, helpers: 3 },
    });
    const round = (m: number) => ({
      cpu: { bench: m, server: m, threads: { main: m, workflow: 1, core: 2, helpers: 3 } },
    });
    expect(medianCpu([round(1), round(5), round(3)]).threads).toEqual({ main: 3, workflow: 1, core: 2, helpers: 3 });
  });
});
