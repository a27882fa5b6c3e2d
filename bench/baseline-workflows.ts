// Bare Temporal baselines: the least a workflow needs to offer the gate's contract, so
// the bench can say what the gate itself costs. Workflow code: bundled by the baseline
// worker, no Node modules, no I/O.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';

export interface BareLifecycleInput {
  /** What the caller would send to create a gate; consume hands back its `args`. */
  body: { args: Record<string, unknown> } & Record<string, unknown>;
}

export const bareApproveUpdate = defineUpdate<{ status: string }, [{ reviewer_id: string }]>('bareApprove');
export const bareConsumeUpdate = defineUpdate<{ args: Record<string, unknown> }, [{ consumer_id: string }]>(
  'bareConsume',
);
export const bareStatusQuery = defineQuery<string>('bareStatus');
export const bareGoSignal = defineSignal('bareGo');

/**
 * External path without the gate: created by workflow.start, approved by one update,
 * consumed by one update that returns the args; completes after the consume. Illegal
 * transitions are refused by synchronous validators, as the gate refuses them.
 */
export async function bareLifecycleWorkflow(input: BareLifecycleInput): Promise<string> {
  let status = 'requested';
  const refuse = (want: string): void => {
    if (status !== want)
      throw ApplicationFailure.create({
        type: 'IllegalTransition',
        message: `status is ${status}, not ${want}`,
        nonRetryable: true,
      });
  };
  setHandler(bareStatusQuery, () => status);
  setHandler(
    bareApproveUpdate,
    (_m) => {
      status = 'approved';
      return { status };
    },
    { validator: (_m) => refuse('requested') },
  );
  setHandler(
    bareConsumeUpdate,
    (_m) => {
      status = 'consumed';
      return { args: input.body.args };
    },
    { validator: (_m) => refuse('approved') },
  );
  await condition(() => status === 'consumed');
  await condition(allHandlersFinished);
  return status;
}

export interface BareActivities {
  /** The stand-in for a tool: records when it began (in the bench process) and returns. */
  bareTool(key: string): Promise<string>;
}

const { bareTool } = proxyActivities<BareActivities>({ startToCloseTimeout: '1m' });

/** Tool path without the gate: waits for one signal, then runs one activity. */
export async function bareToolWorkflow(key: string): Promise<string> {
  let go = false;
  setHandler(bareStatusQuery, () => (go ? 'running' : 'waiting'));
  setHandler(bareGoSignal, () => void (go = true));
  await condition(() => go);
  return bareTool(key);
}
