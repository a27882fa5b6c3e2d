// A standalone gate worker and the HTTP API, serving your domain (nothing in approval-gate is edited).
import { loadConfig, startApiServer, type RunningApi } from 'approval-gate/api';
import { createGateWorker, type GateWorker } from 'approval-gate/worker';
import { refundsDomain } from './refunds-domain';

export async function startGateServer(): Promise<{ api: RunningApi; worker: GateWorker }> {
  const worker = await createGateWorker({ domains: [refundsDomain] }); // GATE_TASK_QUEUE, GATE_DATA_DIR, …
  void worker.run();
  const api = await startApiServer(loadConfig(), { domains: [refundsDomain] });
  return { api, worker };
}
