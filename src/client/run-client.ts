import { randomUUID } from 'node:crypto';
import { type Client, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { httpStatusFor } from '../common/failure-types';
import { GateError, snakeCase } from './gate-error';
import { InteractionResponse } from '../common/interaction';
import { ModelSpec } from '../common/model-spec';
import { DEFAULT_TENANT, visibleTo, type Scope } from '../common/tenant';
import { GATE_AGENT, GATE_RUN_STATUS, GATE_TENANT } from '../workflow/gate/messages';
import { quote, scopeClauses, tenantOf } from './gate-views';
import { logProblem } from '../common/conversation-log';
import type { Message } from '../common/conversation';
import type { ConversationStore } from '../store/conversation-store';
import { getRunQuery, respondInteractionUpdate, type RunInput, type RunView } from '../workflow/agent-run/messages';

/** Body of `POST /v1/runs`. */
export const CreateRunBody = z
  .object({
    /** What the user asked for. */
    goal: z.string().min(1).max(4000),
    /** The domain adapter that owns the tools: one the server registered (see GET /healthz or the 422's details). */
    domain: z.string().min(1).max(100),
    /** Scripted turns or a real provider. */
    model: ModelSpec,
    /** TTL of each approval the run opens (default 1 hour). */
    approval_ttl_seconds: z
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .default(3600),
    /** Model calls before the run gives up; the run continues as new as it goes, so history size sets no ceiling. */
    max_turns: z.int().min(1).max(10_000).default(20),
  })
  .strict();
export type CreateRunBody = z.infer<typeof CreateRunBody>;

// Run errors are GateErrors: one error shape (`status`, snake_case `code`) for the whole API.

function issues(e: z.ZodError): { path: string; message: string }[] {
  return e.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

/** The registered workflow type of every agent run. */
export const RUN_WORKFLOW_TYPE = 'agentRunWorkflow';

/**
 * Starts, reads, answers and cancels agent runs (workflow id = run id). Like GateClient,
 * every method naming a run takes an optional `scope`: a run outside it is a 404 exactly
 * like a missing one.
 */
export class RunClient {
  constructor(
    private readonly client: Client,
    private readonly opts: {
      taskQueue: string;
      /** Domains the workers serve; a run naming another is refused (422). Unchecked when absent. */
      domains?: readonly string[];
      /**
       * The workers' conversation store: a run too large for one answer shows its newest
       * messages and names the rest there (see `RunView.messages_omitted`).
       */
      conversations?: ConversationStore;
    },
  ) {}

  /** The view with every message: the ones a large run left out of its answer are read from the conversation log and checked against its chain. */
  private async withAllMessages(view: RunView): Promise<RunView> {
    const { messages_omitted: omitted, conversation, ...rest } = view;
    if (!omitted || !conversation) return view;
    if (!this.opts.conversations)
      throw new GateError(
        503,
        'conversation_unavailable',
        `run ${view.run_id} keeps its ${omitted} earliest messages in the conversation store, which this client was not given`,
      );
    const older = (await this.opts.conversations.messages(conversation.run_id, 0, conversation.count)).map(
      (r) => JSON.parse(r) as Message,
    );
    const problem = logProblem(conversation, older);
    if (problem) throw new GateError(500, 'broken_conversation', problem);
    return { ...rest, messages: [...older, ...view.messages] };
  }

  /** Validates and starts a run for `agentId` in `tenant`. Throws GateError 422 on a bad body. */
  async start(
    body: unknown,
    agentId: string,
    tenant: string = DEFAULT_TENANT,
  ): Promise<{ run_id: string; status: string }> {
    const parsed = CreateRunBody.safeParse(body);
    if (!parsed.success) throw new GateError(422, 'invalid_run', 'the run request is invalid', issues(parsed.error));
    const b = parsed.data;
    const known = this.opts.domains;
    if (known && !known.includes(b.domain))
      throw new GateError(
        422,
        'unknown_domain',
        `unknown domain "${b.domain}"; known domains: ${known.join(', ') || '(none)'}`,
        [{ path: 'domain', message: `must be one of: ${known.join(', ') || '(none registered)'}` }],
      );
    const input: RunInput = {
      run_id: `run_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      goal: b.goal,
      domain: b.domain,
      model: b.model,
      agent_id: agentId,
      tenant,
      approval_ttl_seconds: b.approval_ttl_seconds,
      max_turns: b.max_turns,
    };
    await this.client.workflow.start(RUN_WORKFLOW_TYPE, {
      workflowId: input.run_id,
      taskQueue: this.opts.taskQueue,
      args: [input],
      typedSearchAttributes: [
        { key: GATE_RUN_STATUS, value: 'running' },
        { key: GATE_AGENT, value: agentId },
        { key: GATE_TENANT, value: tenant },
      ],
      memo: { goal: b.goal, domain: b.domain, agent_id: agentId, tenant },
      staticSummary: `agent run (${b.domain}): ${b.goal.slice(0, 100)}`,
    });
    return { run_id: input.run_id, status: 'running' };
  }

  /** The run's view. Throws 404 when there is no such run (also for a gate's id). */
  async get(runId: string, scope?: Scope): Promise<RunView> {
    await this.runInfo(runId, scope);
    try {
      return await this.withAllMessages(await this.client.workflow.getHandle(runId).query(getRunQuery));
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  /**
   * Checks that the id names an agent run the scope may see (404 otherwise, the same
   * answer as for no run at all) and returns its memo. Exposed so that routes reading a
   * run's rows elsewhere (its audit trail) check the run first.
   */
  async runInfo(runId: string, scope?: Scope): Promise<{ agent_id?: string }> {
    if (typeof runId !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(runId))
      throw runNotFound(String(runId).slice(0, 200));
    try {
      const d = await this.client.workflow.getHandle(runId).describe();
      if (d.type !== RUN_WORKFLOW_TYPE) throw runNotFound(runId);
      const memo = (d.memo ?? {}) as { agent_id?: string };
      const agentId = memo.agent_id ?? d.typedSearchAttributes.get(GATE_AGENT);
      if (scope && !visibleTo(scope, { tenant: tenantOf(d), agentId })) throw runNotFound(runId);
      return memo;
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  /** Ids of the runs the scope may see, newest first (see `visibleRunIds`). */
  runIds(scope: Scope, limit?: number): Promise<string[]> {
    return visibleRunIds(this.client, scope, limit);
  }

  /** Answers an interaction; 422 when the response does not fit, 409/404 when nothing waits for it. */
  async respond(
    runId: string,
    interactionId: string,
    body: unknown,
    responderId: string,
    scope?: Scope,
  ): Promise<RunView> {
    await this.runInfo(runId, scope);
    const parsed = InteractionResponse.safeParse(body);
    if (!parsed.success)
      throw new GateError(422, 'invalid_response', 'the interaction response is invalid', issues(parsed.error));
    try {
      return await this.withAllMessages(
        await this.client.workflow.getHandle(runId).executeUpdate(respondInteractionUpdate, {
          args: [interactionId, { ...parsed.data, responder_id: responderId }],
        }),
      );
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  /** Cancels the run as the agent that started it; its pending gates end `cancelled`. Throws 403 for another agent (404 when scoped), 404. */
  async cancel(runId: string, agentId: string, scope?: Scope): Promise<void> {
    const memo = await this.runInfo(runId, scope);
    if (memo.agent_id !== agentId)
      throw new GateError(
        403,
        'not_requester',
        `only ${memo.agent_id ?? 'the agent that started it'} may cancel run ${runId}`,
      );
    try {
      await this.client.workflow.getHandle(runId).cancel();
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  private mapError(err: unknown, runId: string): Error {
    if (err instanceof GateError) return err;
    if (err instanceof WorkflowNotFoundError) return runNotFound(runId);
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
      const type = err.cause.type ?? 'Error';
      const details = err.cause.details?.[0];
      return new GateError(
        type === 'UnknownInteraction' ? 409 : httpStatusFor(type),
        snakeCase(type),
        err.cause.message,
        details,
      );
    }
    if (err instanceof Error && /already completed|not found/i.test(err.message))
      return new GateError(409, 'run_closed', `run ${runId} is no longer running: ${err.message}`);
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** 404 for a run id that names no run the caller may see. */
function runNotFound(runId: string): GateError {
  return new GateError(404, 'not_found', `no run ${runId}`);
}

/**
 * Ids of the runs a scope may see, newest first, from visibility (eventually consistent):
 * the sessions whose domain rows the caller may read (a run's id is its domain session).
 */
export async function visibleRunIds(client: Client, scope: Scope, limit = 10_000): Promise<string[]> {
  const query = [`WorkflowType = ${quote(RUN_WORKFLOW_TYPE)}`, ...scopeClauses(scope)].join(' AND ');
  const ids: string[] = [];
  for await (const info of client.workflow.list({ query, pageSize: 1000 })) {
    const agentId = ((info.memo ?? {}) as { agent_id?: string }).agent_id ?? info.typedSearchAttributes.get(GATE_AGENT);
    if (visibleTo(scope, { tenant: tenantOf(info), agentId })) ids.push(info.workflowId);
    if (ids.length >= limit) break;
  }
  return ids;
}
