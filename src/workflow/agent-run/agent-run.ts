import {
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  TemporalFailure,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ToolCall, ToolMessage } from '../../common/conversation';
import { checkReply, rewriteToolCallArgs, validateConversation } from '../../common/conversation';
import { resolveLimits } from '../../common/continuation';
import { checkInteractionResponse, InteractionResponse } from '../../common/interaction';
import type { RunActivities } from '../../worker/activities/run-contracts';
import { AuditTrail } from '../gate/audit-trail';
import { GATE_AGENT, GATE_RUN_STATUS } from '../gate/messages';
import { failureMessageOf, failureTypeOf, namedFailure, refusalFailure } from '../internal/failures';
import { continueReasonNow, continueRun } from './continuation';
import { runToolCall, type CallContext } from './tool-call';
import { ConversationLog } from '../../common/conversation-log';
import { callModelByRef, restoreLog, viewOf } from './conversation';
import { observeRunEvent } from '../gate/metrics';
import {
  argsFinalizedSignal,
  getRunQuery,
  respondInteractionUpdate,
  type PendingInteraction,
  type RunInput,
  type RunStatus,
  type RunView,
} from './messages';

const model = proxyActivities<RunActivities>({
  startToCloseTimeout: '2m',
  // callModel heartbeats every 2 s: a worker killed mid-call, or a completion lost while the
  // server restarts, is retried after 15 s instead of after the 2-minute start-to-close.
  heartbeatTimeout: '15s',
  retry: {
    initialInterval: '2s',
    maximumInterval: '30s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['ModelExhausted', 'ModelError'],
  },
});
// Store reads ride out an outage of several minutes before the run gives up.
const adapter = proxyActivities<RunActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', maximumInterval: '1m', maximumAttempts: 20 },
});

/** Refused signals a run records one by one; past it they are only counted (`refusals_unrecorded`). */
const MAX_RECORDED_REFUSALS = 100;

/**
 * The Workflow Loop: model -> one task per tool call (policy, then the tool or a child
 * gate) -> barrier -> results in call order -> model, until the model answers without
 * tool calls. It owns order, waiting and resuming; the domain adapter owns meaning.
 *
 * A run has no turn ceiling from history size: at a turn boundary with nothing pending
 * (see `continueReason`) it continues as new, carrying its conversation log's ref (the
 * messages are in the store), denial memory, the turn count and the audit chain head.
 */
export async function agentRunWorkflow(input: RunInput): Promise<RunView> {
  // The conversation log: model calls, hand-overs and views name the stored conversation by ref.
  const log = new ConversationLog(input.run_id);
  const carried = input.continuation;
  const limits = resolveLimits(input.continue_as_new);
  const firstTurn = carried?.turns ?? 0;
  const view: RunView = {
    run_id: input.run_id,
    status: 'running',
    goal: input.goal,
    domain: input.domain,
    messages: carried ? [] : [{ role: 'user', content: input.goal }], // a carried conversation is restored in the try below
    pending_approvals: [],
    pending_interactions: [],
    executions: carried?.execution ?? 1,
    turns: firstTurn,
  };
  const answers = new Map<string, InteractionResponse>();
  const denied = new Set<string>(carried?.denied ?? []);
  const trail = new AuditTrail(
    input.run_id,
    null,
    () => ({ run_id: input.run_id }),
    carried?.audit_head,
    (e) => observeRunEvent(input.domain, e),
  );

  const setStatus = (status: RunStatus): void => {
    view.status = status;
    upsertSearchAttributes([{ key: GATE_RUN_STATUS, value: status }]);
    setCurrentDetails(
      `**${status}** · ${input.domain} · ${input.goal}` + (view.error ? `\n\nerror: ${view.error}` : ''),
    );
  };
  const refreshWaiting = (): void => {
    if (view.status !== 'running' && !view.status.startsWith('waiting')) return;
    setStatus(
      view.pending_interactions.length > 0
        ? 'waiting_interaction'
        : view.pending_approvals.length > 0
          ? 'waiting_approval'
          : 'running',
    );
  };

  setHandler(getRunQuery, () => viewOf(view, log));
  // A flood of stray signals must not grow the run's history without bound: past the cap they are only counted.
  let refusalsRecorded = 0;
  setHandler(argsFinalizedSignal, (a) => {
    // Only this run's own pending gate may rewrite its call; anything else is refused visibly.
    const pending =
      a && typeof a === 'object'
        ? view.pending_approvals.find((p) => p.call_id === a.call_id && p.request_id === a.request_id)
        : undefined;
    if (!pending || a.args === null || typeof a.args !== 'object' || Array.isArray(a.args)) {
      if (++refusalsRecorded > MAX_RECORDED_REFUSALS) {
        view.refusals_unrecorded = (view.refusals_unrecorded ?? 0) + 1;
        return;
      }
      trail.append({
        event_type: 'signal.refused',
        actor_type: 'system',
        actor_id: 'approval-gate',
        note: 'argsFinalized for no pending gate of this run',
        data: { call_id: String(a?.call_id ?? ''), request_id: String(a?.request_id ?? '') },
      });
      return;
    }
    // Modify: the recorded assistant message shows the args that will execute, before the tool runs.
    view.messages = rewriteToolCallArgs(view.messages, a.call_id, a.args);
  });
  setHandler(
    respondInteractionUpdate,
    (id: string, response: InteractionResponse): RunView => {
      answers.set(id, response);
      return viewOf(view, log);
    },
    {
      validator: (id: string, response: InteractionResponse): void => {
        const pending = view.pending_interactions.find((p) => p.id === id);
        if (!pending || answers.has(id))
          throw refusalFailure({ type: 'UnknownInteraction', message: `no pending interaction ${String(id)}` });
        const parsed = InteractionResponse.safeParse(response);
        if (!parsed.success)
          throw refusalFailure({
            type: 'InvalidResponse',
            message: 'malformed interaction response',
            details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
          });
        const problems = checkInteractionResponse(pending, parsed.data);
        if (problems.length > 0)
          throw refusalFailure({ type: 'InvalidResponse', message: problems.join('; '), details: problems });
      },
    },
  );

  upsertSearchAttributes([{ key: GATE_AGENT, value: input.agent_id }]);
  setStatus('running');
  // A continued run is the same run: its trail goes on from the carried head (`run.continued`).
  if (!carried)
    trail.append({
      event_type: 'run.started',
      actor_type: 'agent',
      actor_id: input.agent_id,
      note: input.goal,
      data: { domain: input.domain, model: input.model.kind },
    });

  const ctx: CallContext = {
    input,
    view,
    denied,
    trail,
    refreshWaiting,
    awaitAnswer: async (p: PendingInteraction) => {
      view.pending_interactions.push(p);
      refreshWaiting();
      await condition(() => answers.has(p.id));
      view.pending_interactions = view.pending_interactions.filter((x) => x.id !== p.id);
      refreshWaiting();
      return answers.get(p.id)!;
    },
  };

  try {
    if (carried) view.messages = await restoreLog(log, carried.conversation.log);
    for (let turn = firstTurn; ; turn++) {
      if (turn >= input.max_turns)
        throw ApplicationFailure.create({
          type: 'TurnLimit',
          message: `no final answer after ${input.max_turns} model calls`,
          nonRetryable: true,
        });
      const problems = validateConversation(view.messages);
      if (problems.length > 0)
        throw ApplicationFailure.create({
          type: 'BrokenConversation',
          message: `conversation is broken: ${problems.join('; ')}`,
          nonRetryable: true,
        });
      // Turn boundary: the barrier appended the whole last batch, so nothing is pending and the conversation is sound.
      const reason = continueReasonNow(view, turn - firstTurn, limits);
      if (reason) await continueRun({ input, view, trail, denied, turns: turn, reason, log });
      const tools = await adapter.listPermittedTools({ domain: input.domain, session_id: input.run_id });
      const modelInput = { model: input.model, tools: [...tools, ASK_USER_SPEC] };
      const reply = await callModelByRef(log, view.messages, (i) => model.callModel(i), modelInput);
      // Checked before anything runs: call ids name gates and idempotency keys.
      const replyProblems = checkReply(view.messages, reply);
      if (replyProblems.length > 0)
        throw ApplicationFailure.create({
          type: 'BrokenConversation',
          message: `the model's reply cannot run: ${replyProblems.join('; ')}`,
          nonRetryable: true,
        });
      view.messages.push(reply);
      view.turns = turn + 1;
      const calls = reply.tool_calls ?? [];
      if (calls.length === 0) {
        view.final_answer = reply.content;
        break;
      }
      // Each call is its own task; the barrier releases only when every call has its one result.
      const results: ToolMessage[] = await Promise.all(calls.map((c: ToolCall) => runToolCall(ctx, c)));
      view.messages.push(...results);
    }
    setStatus('completed');
    trail.append({
      event_type: 'run.completed',
      actor_type: 'agent',
      actor_id: input.agent_id,
      note: view.final_answer,
    });
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      view.pending_approvals = [];
      view.pending_interactions = [];
      setStatus('cancelled');
      trail.append({ event_type: 'run.cancelled', actor_type: 'system', actor_id: 'approval-gate' });
      await CancellationScope.nonCancellable(() => trail.flush());
      throw err;
    }
    // A bug in workflow code (not a Temporal failure) fails the workflow task, which Temporal retries:
    // a deploy with the fix replays past it and the run goes on. Nothing is recorded for it.
    if (!(err instanceof TemporalFailure)) throw err;
    view.error = failureMessageOf(err);
    view.error_type = failureTypeOf(err);
    setStatus('failed');
    trail.append({
      event_type: 'run.failed',
      actor_type: 'system',
      actor_id: 'approval-gate',
      note: view.error,
      data: { failure_type: view.error_type },
    });
    await trail.flush();
    throw namedFailure(err); // the cause's own type, e.g. ModelUnavailable
  }
  await trail.flush();
  return viewOf(view, log);
}

/** The loop's own tool for structured questions to a person (docs/agent-runs.md). */
export const ASK_USER_SPEC = {
  name: 'ask_user',
  description:
    'Ask the person a structured question and wait for the answer. type: INPUT (free text), SELECT (one of options), REVIEW_DIFF (accept/reject a change), CONFIRM (yes/no).',
  parameters: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['INPUT', 'SELECT', 'REVIEW_DIFF', 'CONFIRM'] },
      target: { type: 'string' },
      prompt: { type: 'string' },
      options: { type: 'array', items: { type: 'string' } },
      required: { type: 'boolean' },
    },
    required: ['type', 'target', 'prompt'],
  },
};
