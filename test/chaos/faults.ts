import {
  killTemporal,
  killWorker,
  restartDatabase,
  restartTemporal,
  restartWorker,
  stopDatabase,
  workerIndex,
} from '../../src/stack/control';
import { STACK_WORKERS, type StackSettings } from '../../src/stack/settings';

/** The faults of the chaos table (issue 9). */
export const FAULTS = ['kill_one_worker', 'kill_both_workers', 'kill_temporal', 'restart_postgres'] as const;
export type Fault = (typeof FAULTS)[number];

export const FAULT_LABELS: Record<Fault, string> = {
  kill_one_worker: 'SIGKILL one worker (other up)',
  kill_both_workers: 'SIGKILL both workers, restart',
  kill_temporal: 'SIGKILL Temporal server, restart',
  restart_postgres: 'PostgreSQL stop (immediate), start',
};

/**
 * Injects `fault` while calls wait at a boundary in the worker processes `heldBy`, lifts
 * the hold (`release`) so the calls go on into the fault, and brings the stack back.
 * Returns the pids whose calls met the fault: for `kill_one_worker` only the killed
 * worker's, for the others every holder's.
 */
export async function inject(
  s: StackSettings,
  fault: Fault,
  heldBy: number[],
  release: () => void,
  outageMs = 2000,
): Promise<number[]> {
  switch (fault) {
    case 'kill_one_worker': {
      // The worker holding the most calls dies; the other stays up and must take them over.
      const counts = new Map<number, number>();
      for (const pid of heldBy) counts.set(pid, (counts.get(pid) ?? 0) + 1);
      const victim = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
      const index = victim === undefined ? 0 : workerIndex(s, victim);
      const killed = await killWorker(s, index < 0 ? 0 : index);
      release();
      // Restarted only once the survivor has had time to take over, so the takeover is what is tested.
      await new Promise((r) => setTimeout(r, outageMs));
      await restartWorker(s, index < 0 ? 0 : index);
      return [killed];
    }
    case 'kill_both_workers': {
      for (let i = 0; i < STACK_WORKERS; i++) await killWorker(s, i);
      release();
      await new Promise((r) => setTimeout(r, outageMs));
      for (let i = 0; i < STACK_WORKERS; i++) await restartWorker(s, i);
      return heldBy;
    }
    case 'kill_temporal': {
      await killTemporal(s);
      release(); // the held calls go on and report to a server that is not there
      await new Promise((r) => setTimeout(r, outageMs));
      await restartTemporal(s);
      return heldBy;
    }
    case 'restart_postgres': {
      stopDatabase(s);
      release(); // the held calls go on into a database that is down
      await new Promise((r) => setTimeout(r, outageMs));
      restartDatabase(s);
      return heldBy;
    }
  }
}
