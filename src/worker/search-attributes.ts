import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/search-attributes';
import { sleep, until } from '../stack/processes';

/**
 * After the frontend knows new attributes, how long the other services may still hold the
 * namespace without them: the server's namespace cache refreshes every 2 s
 * (`system.namespaceCacheRefreshInterval`), and the history service validates the upserts.
 */
const NAMESPACE_REFRESH_MS = 3000;

/**
 * Registers the gate's Keyword search attributes on a server that lacks them (a
 * production cluster, or a dev server started by hand), and returns once the server
 * serves them. Idempotent: a server that has them all costs one call.
 *
 * The wait replaces `system.forceSearchAttributesCacheRefreshOnRead`, which the server's
 * docs keep out of production: it made every listed row read the attribute metadata
 * from the database again (see deploy/temporal/dynamicconfig.yaml).
 */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const missing = Object.values(SEARCH_ATTRIBUTE_NAMES).filter((n) => !have.has(n));
    if (missing.length > 0) {
      const searchAttributes = Object.fromEntries(
        missing.map((n) => [n, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      );
      const added = Date.now();
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
      await until(
        'the server added the gate search attributes but did not serve them',
        async () => (
          await connection.workflowService.countWorkflowExecutions({ namespace, query: servedQuery() }),
          true
        ),
        60_000,
      );
      const rest = added + NAMESPACE_REFRESH_MS - Date.now();
      if (rest > 0) await sleep(rest);
    }
    return missing;
  } finally {
    await connection.close();
  }
}

/** A visibility query naming every gate attribute: refused (InvalidArgument) while the frontend does not know one. */
export function servedQuery(): string {
  return Object.values(SEARCH_ATTRIBUTE_NAMES)
    .map((n) => `${n} = 'approval-gate-probe'`)
    .join(' AND ');
}
