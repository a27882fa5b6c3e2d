import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** An agent script running as its own process, as a restart test drives it. */
export interface AgentProcess {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** SIGKILL: no shutdown hooks, as when the host dies. */
  kill(): Promise<void>;
}

/** Starts `node --import tsx <script>` from the fixtures with `env` added. */
export function startAgent(script: string, env: Record<string, string>): AgentProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'fixtures', 'adapters', script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    exited,
    output: () => out,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
