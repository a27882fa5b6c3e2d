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
      emit(io, opts.json, { request_id: id, ...verdict }, () => `${formatAuditTable(events)}\n\n${formatVerdict(verdict)}`);
      if (!verdict.ok) throw new CheckFailedError(`audit trail of ${id} is broken`);
    });
}
