import { Command } from 'commander';
import { CheckFailedError } from '../errors';
import { auditEvents, formatAuditTable, formatVerdict, verifyAudit } from '../format-audit';
import { emit, type CliIo } from '../io';
import { clientFor, withApi, type ApiOptions } from '../options';

interface AuditOptions extends ApiOptions {
  verify?: boolean;
}

/** `gate audit <id> [--verify]`: a request's trail; `--verify` recomputes its hash chain here. */
export function auditCommand(io: CliIo): Command {
  return withApi(new Command('audit').description("show a request's audit trail").argument('<id>', 'request id'))
    .option('--verify', 'recompute the hash chain locally; exit 1 if it is broken')
    .action(async (id: string, opts: AuditOptions) => {
      const body = await clientFor(opts).audit(id);
      const events = auditEvents(body);
      if (!opts.verify) return emit(io, opts.json, body, () => formatAuditTable(events));
      const verdict = verifyAudit(id, events);
      // The server also compares the append-only store with the gate's chain; a store edited behind its back fails here.
      const store = (
        body as {
          store?: {
            verified: boolean;
            matches_workflow: boolean;
            count: number;
            lagging: number;
            problem?: { reason: string };
          };
        }
      ).store;
      const storeOk = !store || (store.verified && store.matches_workflow);
      const storeLine = !store
        ? 'store: not checked (the API has no store)'
        : storeOk
          ? `store: ${store.count} events match the gate's chain${store.lagging ? ` (${store.lagging} still being written)` : ''}`
          : `store: BROKEN: ${store.problem?.reason ?? 'differs from the gate'}`;
      emit(
        io,
        opts.json,
        { request_id: id, ...verdict, store: store ?? null },
        () => `${formatAuditTable(events)}\n\n${formatVerdict(verdict)}\n${storeLine}`,
      );
      if (!verdict.ok || !storeOk) throw new CheckFailedError(`audit trail of ${id} is broken`);
    });
}
