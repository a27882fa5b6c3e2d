// The header: which machine, which code, which server, which sizes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { loadConfig } from '../src/config';
import type { BenchConfig } from './config';

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    return m ? m[1]!.trim() : 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

/** The checkout's commit, and whether the working tree differs from it (another engineer may be editing src/). */
function codeVersion(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return 'not a git checkout';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], { encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.stdout.trim() ? ' + uncommitted changes in src/' : ''}`;
}

export function header(cfg: BenchConfig, server: string): string[] {
  const gib = (os.totalmem() / 2 ** 30).toFixed(1);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const gate = loadConfig(process.env);
  return [
    `approval-gate bench  ${new Date().toISOString()}`,
    `machine: ${os.cpus().length} cpus (${cpuModel()}), ${gib} GiB memory, load ${load}, node ${process.version}, ${os.platform()} ${os.release()}`,
    `code:    ${codeVersion()}`,
    `server:  ${server}`,
    `gates:   GATE_WORKFLOW_CACHE_SIZE=${gate.workflowCacheSize} GATE_EAGER_START=${gate.eagerStart ? 'on' : 'off'}`,
    `sizes:   sections ${cfg.sections.join(',')}; BENCH_N=${cfg.n} BENCH_ROUNDS=${cfg.rounds} BENCH_C=${cfg.concurrency} BENCH_TOOL_N=${cfg.toolN} ` +
      `BENCH_CREATE_N=${cfg.createN} BENCH_CREATE_C=${cfg.createC} BENCH_POLICY_N=${cfg.policyN} BENCH_PENDING=${cfg.pending} BENCH_FILL_C=${cfg.fillC} BENCH_DECISIONS=${cfg.decisions} BENCH_LIST_N=${cfg.listN} BENCH_BURST_N=${cfg.burstN} BENCH_BURST_C=${cfg.burstC} BENCH_CLIENT=${cfg.client} BENCH_BARE_STACKS=${cfg.bareStacks}`,
    '',
  ];
}
