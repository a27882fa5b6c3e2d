// Activities (plain Node): the refund, idempotent by key, and the recheck the gate runs before it.
import fs from 'node:fs';
import type { GatedCall, RecheckInput, RecheckResult } from 'approval-gate/workflow';
import type { Refund } from './refund-workflows';

/** The refund ledger: one JSON line per refund made (a stand-in for your payment provider). */
const ledger = (): string => process.env.REFUND_LEDGER ?? 'refunds.jsonl';
const entries = (): (Refund & { key: string })[] =>
  fs.existsSync(ledger())
    ? fs
        .readFileSync(ledger(), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

export async function refund(r: Refund, call: Pick<GatedCall, 'idempotency_key'>): Promise<string> {
  if (entries().some((e) => e.key === call.idempotency_key)) return `refund ${call.idempotency_key} was already made`;
  fs.appendFileSync(ledger(), JSON.stringify({ key: call.idempotency_key, ...r }) + '\n');
  return `refunded ${r.cents} cents on order ${r.order_id}`;
}

export async function orderStillRefundable(input: RecheckInput): Promise<RecheckResult> {
  const done = entries().some((e) => e.order_id === input.args.order_id);
  return done
    ? { ok: false, reason: 'the order was refunded meanwhile', mismatches: ['order.refunded'] }
    : { ok: true };
}
