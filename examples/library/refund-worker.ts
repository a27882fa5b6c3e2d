// Your worker, with the approval gate added by one plugin line.
import { NativeConnection, Worker } from '@temporalio/worker';
import { approvalGatePlugin } from 'approval-gate/worker';
import * as activities from './refund-activities';

export async function createRefundWorker(taskQueue: string): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('./refund-workflows'),
    activities,
    plugins: [approvalGatePlugin()], // gate workflows + audit/webhook activities; store from GATE_DATA_DIR
  });
  return { worker, connection };
}
