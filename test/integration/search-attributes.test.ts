import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ensureSearchAttributes, servedQuery } from '../../src/worker/search-attributes';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/common/search-attributes';
import { GATE_STATUS, GATE_TENANT } from '../../src/workflow/gate/messages';
import { waitFor } from '../support/wait';

// The suite's dev server runs without system.forceSearchAttributesCacheRefreshOnRead (as
// gate stack's server does), so attributes added at run time are served only once the
// server's caches have them: ensureSearchAttributes waits for that before it returns.
describe('ensureSearchAttributes on a namespace without the gate attributes', () => {
  const address = process.env.TEMPORAL_ADDRESS!;
  const namespace = `sa-${randomUUID().slice(0, 8)}`;
  let connection: Connection;

  beforeAll(async () => {
    connection = await Connection.connect({ address });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await waitFor(
      `namespace ${namespace} serves requests`,
      async () => (await connection.workflowService.countWorkflowExecutions({ namespace, query: '' }), true),
    );
  }, 40_000);
  afterAll(async () => connection?.close());

  it('adds every attribute and returns only once a start and a query may use them', async () => {
    const added = await ensureSearchAttributes(address, namespace);
    expect(added.sort()).toEqual(Object.values(SEARCH_ATTRIBUTE_NAMES).sort());
    // At once, no retry: what a gate's creation and a listing do right after `gate stack up`.
    const client = new Client({ connection, namespace });
    const handle = await client.workflow.start('approvalGateWorkflow', {
      workflowId: `sa-probe-${randomUUID()}`,
      taskQueue: `sa-${randomUUID()}`, // no worker: only the start's attribute check matters
      args: [],
      typedSearchAttributes: [
        { key: GATE_STATUS, value: 'requested' },
        { key: GATE_TENANT, value: 'default' },
      ],
    });
    await expect(
      connection.workflowService.countWorkflowExecutions({ namespace, query: servedQuery() }),
    ).resolves.toBeDefined();
    await handle.terminate('probe');
    expect(await ensureSearchAttributes(address, namespace)).toEqual([]); // idempotent: nothing left to add
  }, 90_000);
});
