import { ActivityFailure, log, patched, proxyActivities } from '@temporalio/workflow';
import type { IssuedGrant } from '../../common/grant';
import type { GateActivities } from '../../worker/activities/contracts';
import { DOMAIN_READS } from './phases';

/**
 * Patch id of gates that store the standing grant their quorum gave (`issueGrant`). Before
 * it (0.2.0), only the API stored a grant, and only from a decision it saw applied within
 * its wait: one answered `202 decision_accepted`, or sent as a signal by another service,
 * gave a grant that was never stored. Asked only when a decision gives a grant.
 */
export const GATE_STORES_GRANT_PATCH = 'gate-stores-grant';

// The store's outage of a few minutes is ridden out, as the gate's other store reads do.
const { issueGrant } = proxyActivities<GateActivities>(DOMAIN_READS);

/**
 * The grants a gate gave, being stored in the background: a decision's answer does not wait
 * for the store, and the gate waits for them before it ends or continues as new.
 * Workflow code.
 */
export class GrantIssues {
  private readonly pending: Promise<void>[] = [];

  constructor(private readonly tenant: string) {}

  /** Starts storing a grant a decision just gave (not one a retried decision gave before). */
  issue(grant: IssuedGrant): void {
    if (!patched(GATE_STORES_GRANT_PATCH)) return;
    this.pending.push(
      issueGrant({ grant, tenant: this.tenant }).then(
        ({ stored }) => {
          if (!stored) log.warn('no grant store on this worker: the grant is not stored', { grant_id: grant.grant_id });
        },
        (err: unknown) => {
          // The approval stands; only later creates lose the grant's shortcut to a person.
          if (!(err instanceof ActivityFailure)) throw err;
          log.error('the standing grant could not be stored', { grant_id: grant.grant_id, error: err.message });
        },
      ),
    );
  }

  /** Resolves when every grant started so far is stored (or given up). */
  async settled(): Promise<void> {
    await Promise.all(this.pending);
  }
}
