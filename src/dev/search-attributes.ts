import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_NAMES } from '../core/search-attributes';

/**
 * Registers the gate's Keyword search attributes on a server that lacks them (a
 * production cluster, or a dev server started by hand). Idempotent.
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
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    }
    return missing;
  } finally {
    await connection.close();
  }
}
