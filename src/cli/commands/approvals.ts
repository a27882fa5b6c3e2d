import { Command, Option } from 'commander';
import { APPROVAL_STATUSES } from '../../common/lifecycle';
import { approvalItems, formatApproval, formatApprovalList } from '../format-approvals';
import { emit, type CliIo } from '../io';
import { clientFor, parsePositiveInt, withApi, type ApiOptions } from '../options';

interface ListOptions extends ApiOptions {
  status?: string;
  target?: string;
  limit?: number;
}

/** `gate approvals list|show`: read-only views of approval requests. */
export function approvalsCommand(io: CliIo): Command {
  const cmd = new Command('approvals').description('list and inspect approval requests');
  withApi(cmd.command('list').description('list approval requests, newest first'))
    .addOption(new Option('--status <status>', 'only requests in this status').choices(APPROVAL_STATUSES))
    .option('--target <target>', 'only requests on this target')
    .option('--limit <n>', 'at most this many', parsePositiveInt)
    .action(async (opts: ListOptions) => {
      const body = await clientFor(opts).listApprovals({ status: opts.status, target: opts.target, limit: opts.limit });
      emit(io, opts.json, body, () => formatApprovalList(approvalItems(body)));
    });
  withApi(
    cmd
      .command('show')
      .description('show one request: its evidence, status and deadline')
      .argument('<id>', 'request id'),
  ).action(async (id: string, opts: ApiOptions) => {
    const body = await clientFor(opts).getApproval(id);
    emit(io, opts.json, body, () => formatApproval(body));
  });
  return cmd;
}
