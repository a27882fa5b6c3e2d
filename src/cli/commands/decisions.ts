import { Command } from 'commander';
import { acceptedLine, approvalsProgress, formatApproval, text } from '../format-approvals';
import type { DecisionInput, Json } from '../http';
import type { CliIo } from '../io';
import { clientFor, parseJsonObject, parsePositiveInt, withApi, type ApiOptions } from '../options';
import { UsageError } from '../errors';

interface DecideOptions extends ApiOptions {
  note?: string;
  reason?: string;
  args?: Record<string, unknown>;
  grantFor?: string;
  grantUses?: number;
  grantWhen?: string;
}

/**
 * Reads the request first, so the decision names the exact payload_sha256 and
 * final_args_sha256 the reviewer is shown (a decision on anything else is refused by the
 * server), then decides.
 */
async function decide(io: CliIo, id: string, opts: DecideOptions, decision: DecisionInput['decision']): Promise<void> {
  const client = clientFor(opts, 'reviewer');
  const request = await client.getApproval(id);
  if (!opts.json) io.out(`${verb(decision)} this request:\n${formatApproval(request)}\n`);
  const body: DecisionInput = { decision, payload_sha256: text(request, 'payload_sha256') };
  // Bind the decision to the args shown too: after a reviewer's modification the server requires it.
  const argsSha = (request as { final_args_sha256?: unknown }).final_args_sha256;
  if (typeof argsSha === 'string') body.args_sha256 = argsSha;
  if (opts.note !== undefined) body.note = opts.note;
  if (opts.reason !== undefined) body.reason = opts.reason;
  if (opts.args !== undefined) body.args = opts.args;
  if (opts.grantFor !== undefined || opts.grantUses !== undefined) {
    if (opts.grantFor === undefined || opts.grantUses === undefined)
      throw new UsageError('a standing grant needs both --grant-for and --grant-uses');
    body.grant = {
      for: opts.grantFor,
      max_uses: opts.grantUses,
      ...(opts.grantWhen ? { when: opts.grantWhen } : {}),
    };
  }
  const result = await client.decide(id, body);
  if (opts.json) return io.out(JSON.stringify(result, null, 2));
  io.out(outcomeLine(id, result));
  if (decision === 'modify' && result.pending !== true) {
    // The server may merge and revalidate the args: show the ones that will really run.
    const after = await client.getApproval(id);
    io.out(`args that will run:\n${JSON.stringify(after.final_args ?? body.args, null, 2)}`);
  }
}

function verb(d: DecisionInput['decision']): string {
  return d === 'approve' ? 'Approving' : d === 'reject' ? 'Rejecting' : 'Modifying and approving';
}

/** One line saying where the request stands after the decision (or that it is accepted and pending: a 202). */
export function outcomeLine(id: string, result: Json): string {
  if (result.pending === true) return acceptedLine(id, result);
  const status = text(result, 'status');
  const progress = approvalsProgress(result);
  if (status === 'requested') return `vote recorded on ${id}: ${progress} approvals; waiting for more reviewers`;
  return `${id} is now ${status || 'decided'} (${progress} approvals)`;
}

/** `gate approve`, `gate reject`, `gate modify`: reviewer decisions (reviewer key). */
export function decisionCommands(io: CliIo): Command[] {
  const approve = withApi(new Command('approve').description('approve a request').argument('<id>', 'request id'))
    .option('--note <note>', 'justification for the audit trail')
    .option('--grant-for <duration>', "also give a standing grant for this long (30m, 4h), within the rule's max_for")
    .option('--grant-uses <n>', "the grant's uses, within the rule's max_uses", parsePositiveInt)
    .option('--grant-when <cel>', 'a CEL condition later requests must also meet to use the grant')
    .action((id: string, opts: DecideOptions) => decide(io, id, opts, 'approve'));
  const reject = withApi(
    new Command('reject')
      .description('reject a request; the reason goes back to the agent')
      .argument('<id>', 'request id'),
  )
    .requiredOption('--reason <reason>', 'why (required)')
    .option('--note <note>', 'extra note for the audit trail')
    .action((id: string, opts: DecideOptions) => decide(io, id, opts, 'reject'));
  const modify = withApi(
    new Command('modify')
      .description('approve with changed args (validated like any input)')
      .argument('<id>', 'request id'),
  )
    .requiredOption(
      '--args <json>',
      'replacement args as a JSON object, merged over the requested ones',
      parseJsonObject,
    )
    .option('--note <note>', 'justification for the audit trail')
    .action((id: string, opts: DecideOptions) => decide(io, id, opts, 'modify'));
  return [approve, reject, modify];
}
