import { randomUUID } from 'node:crypto';
import { type Client, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { httpStatusFor } from '../core/failure-types';
import { GateError, snakeCase } from './gate-error';
import { InteractionResponse } from '../core/interaction';
import { ModelSpec } from '../models/spec';
import { GATE_AGENT, GATE_RUN_STATUS } from '../workflows/definitions';
import { getRunQuery, respondInteractionUpdate, type RunInput, type RunView } from '../workflows/run-definitions';

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

/** Starts, reads, answers and cancels agent runs (workflow id = run id). */
export class RunClient {
  constructor(
    private readonly client: Client,
    private readonly opts: {
      taskQueue: string;
      /** Domains the workers serve; a run naming another is refused (422). Unchecked when absent. */
      domains?: readonly string[];
    },
  ) {}

  /** Validates and starts a run for `agentId`. Throws GateError 422 on a bad body. */
  async start(body: unknown, agentId: string): Promise<{ run_id: string; status: string }> {
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
      approval_ttl_seconds: b.approval_ttl_seconds,
      max_turns: b.max_turns,
    };
    await this.client.workflow.start('agentRunWorkflow', {
      workflowId: input.run_id,
      taskQueue: this.opts.taskQueue,
      args: [input],
      typedSearchAttributes: [
        { key: GATE_RUN_STATUS, value: 'running' },
        { key: GATE_AGENT, value: agentId },
      ],
      memo: { goal: b.goal, domain: b.domain, agent_id: agentId },
      staticSummary: `agent run (${b.domain}): ${b.goal.slice(0, 100)}`,
    });
    return { run_id: input.run_id, status: 'running' };
  }

  /** The run's view. Throws 404 when there is no such run (also for a gate's id). */
  async get(runId: string): Promise<RunView> {
    await this.runInfo(runId);
    try {
      return await this.client.workflow.getHandle(runId).query(getRunQuery);
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  /** The run's memo, after checking the id names an agent run. Throws 404 otherwise. */
  private async runInfo(runId: string): Promise<{ agent_id?: string }> {
    try {
      const d = await this.client.workflow.getHandle(runId).describe();
      if (d.type !== 'agentRunWorkflow') throw new GateError(404, 'not_found', `no run ${runId}`);
      return (d.memo ?? {}) as { agent_id?: string };
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  /** Answers an interaction; 422 when the response does not fit, 409/404 when nothing waits for it. */
  async respond(runId: string, interactionId: string, body: unknown, responderId: string): Promise<RunView> {
    await this.runInfo(runId);
    const parsed = InteractionResponse.safeParse(body);
    if (!parsed.success)
      throw new GateError(422, 'invalid_response', 'the interaction response is invalid', issues(parsed.error));
    try {
      return await this.client.workflow.getHandle(runId).executeUpdate(respondInteractionUpdate, {
        args: [interactionId, { ...parsed.data, responder_id: responderId }],
      });
    } catch (err) {
      throw this.mapError(err, runId);
    }
  }

  /** Cancels the run as the agent that started it; its pending gates end `cancelled`. Throws 403 for another agent, 404. */
  async cancel(runId: string, agentId: string): Promise<void> {
    const memo = await this.runInfo(runId);
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
    if (err instanceof WorkflowNotFoundError) return new GateError(404, 'not_found', `no run ${runId}`);
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
