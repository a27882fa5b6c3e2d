// Resident memory of a process and its descendants, from /proc (Linux only).
import fs from 'node:fs';

function readRssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone (or a kernel thread without VmRSS)
  }
}

/** Parent pid of every live process, from /proc/<pid>/stat (field 4, after the parenthesised name). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(entry), ppid);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const ppid = parents();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of ppid) if (parent === tree[i] && !tree.includes(child)) tree.push(child);
  }
  return tree;
}

/** VmRSS of `pid` plus its descendants, in MiB; NaN when the process is gone. */
export function treeRssMiB(pid: number): number {
  if (!fs.existsSync(`/proc/${pid}`)) return NaN;
  return processTree(pid).reduce((sum, p) => sum + readRssKiB(p), 0) / 1024;
}

/** Samples a process tree's RSS every second and keeps the peak. */
export class RssSampler {
  peak = NaN;
  last = NaN;
  private timer?: NodeJS.Timeout;

  constructor(private readonly pid: number) {}

  start(everyMs = 1000): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    return this;
  }

  sample(): number {
    const v = treeRssMiB(this.pid);
    if (Number.isFinite(v)) {
      this.last = v;
      this.peak = Number.isFinite(this.peak) ? Math.max(this.peak, v) : v;
    }
    return v;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
}
