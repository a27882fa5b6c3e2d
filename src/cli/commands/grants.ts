import { Command, Option } from 'commander';
import type { Json } from '../http';
import { emit, type CliIo } from '../io';
import { clientFor, withApi, type ApiOptions } from '../options';
import { renderTable } from '../table';

/** `gate grants list|revoke`: standing grants of the reviewer's tenant (reviewer key). */
export function grantsCommand(io: CliIo): Command {
  const cmd = new Command('grants').description('list and revoke standing grants');
  withApi(cmd.command('list').description("the tenant's standing grants, newest first"))
    .addOption(new Option('--status <status>', 'active ones only, or all').choices(['active', 'all']).default('all'))
    .action(async (opts: ApiOptions & { status: 'active' | 'all' }) => {
      const body = await clientFor(opts, 'reviewer').listGrants(opts.status);
      const grants = (Array.isArray(body.grants) ? body.grants : []) as Json[];
      emit(io, opts.json, body, () =>
        grants.length === 0
          ? 'no grants'
          : renderTable(
              ['GRANT', 'STATUS', 'USES', 'RULE', 'AGENT', 'ACTION', 'TARGET', 'EXPIRES'],
              grants.map((g) => [
                String(g.grant_id),
                String(g.status),
                `${String(g.uses)}/${String(g.max_uses)}`,
                String(g.rule_id),
                String(g.agent_id),
                String(g.action),
                String(g.target),
                String(g.expires_at),
              ]),
              { 6: 40 },
            ),
      );
    });
  withApi(cmd.command('revoke').description('withdraw a standing grant at once').argument('<id>', 'grant id')).action(
    async (id: string, opts: ApiOptions) => {
      const body = await clientFor(opts, 'reviewer').revokeGrant(id);
      const g = (body.grant ?? {}) as Json;
      emit(io, opts.json, body, () =>
        body.revoked
          ? `${id} revoked after ${String(g.uses)} of ${String(g.max_uses)} uses`
          : `${id} was already revoked (${String(g.revoked_at)})`,
      );
    },
  );
  return cmd;
}
