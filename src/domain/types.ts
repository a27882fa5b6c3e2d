import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Snapshot } from '../common/evidence';
import type { RequireKey } from '../api/auth';
import type { Db } from '../store/db';

/**
 * The Domain Adapter contract. The Workflow Loop never reads business results; it asks
 * the adapter what is permitted, what a call turns into, and whether an approved
 * snapshot still holds. Adding a domain means writing one adapter and its tools.
 *
 * `session_id` links the Workflow Session (a run id) to the Domain Session (rows in
 * the domain store); the two share identifiers only.
 */

/** How dangerous a tool is. `read` runs without a person; `change` needs a valid approved snapshot. */
export type RiskClass = 'read' | 'write' | 'change';

/** What a tool did, as data. The loop (never the tool) turns this into the tool-result message. */
export interface ToolOutput {
  /** Text for the model. */
  content: string;
  /** Structured facts (ids, executed values) the loop and tests may read. */
  values?: Record<string, unknown>;
}

/** One tool of a domain. Args are validated against `args` before anything else happens. */
export interface DomainTool {
  name: string;
  description: string;
  risk: RiskClass;
  /** zod schema of the model-facing args. */
  args: z.ZodType<Record<string, unknown>>;
  /** Namespaced verb used as the gate's `action` (e.g. `trip.submit`). */
  action: string;
}

/** What a gate for one call shows its reviewers and binds the approval to. */
export interface CallEvidence {
  action: string;
  target: string;
  summary: string;
  blast_radius: Record<string, number | string>;
  preconditions: Record<string, unknown>;
  snapshot: Snapshot;
}

/** The adapter's verdict on one proposed call. */
export type CallPlan =
  | {
      policy: 'allow';
      /** Final tool input, assembled by the adapter (never trusted from the model for change tools). */
      input: Record<string, unknown>;
      /**
       * Optional evidence, as for `require_approval`: with it a rule of GATE_POLICY_FILE may
       * still put this call before a person (without it such a call is blocked, failing closed).
       */
      evidence?: CallEvidence;
    }
  | {
      policy: 'require_approval';
      input: Record<string, unknown>;
      approvals_required: number;
      /** Evidence fields for the gate (the loop adds ids, TTL and the agent). */
      evidence: CallEvidence;
    }
  | {
      policy: 'block';
      /** Why, in words the model can act on. */
      reason: string;
    };

/** Result of re-checking an approved snapshot right before execution. */
export type RecheckResult = { ok: true } | { ok: false; mismatches: string[]; reason: string };

/** Result of validating a reviewer's modification. */
export type RevisionResult =
  | {
      ok: true;
      input: Record<string, unknown>;
      snapshot: Snapshot;
      approvals_required: number;
      /** The values that will really run, for the tool result and the final answer. */
      executed_values: Record<string, unknown>;
      /**
       * The model-facing args that stand for the revised call (valid against the tool's
       * schema); the run rewrites the recorded call with them. The final input when absent.
       */
      call_args?: Record<string, unknown>;
      summary: string;
    }
  | { ok: false; issues: { path: string; message: string }[] };

/** What a domain's own HTTP routes get from the API. */
export interface DomainRouteContext {
  /** `onRequest` hook: `requireKey('agent')`, `requireKey('reviewer')`, or `requireKey()` for either. */
  requireKey: RequireKey;
  /**
   * The sessions (run ids) the authenticated caller may see: its tenant's, and for an
   * agent key only its own runs. A domain route answers only with rows of these sessions.
   */
  visibleSessions(req: FastifyRequest): Promise<string[]>;
}

/**
 * A domain's read routes, registered by the API under `/v1/domains/<name>` (so
 * `app.get('/submissions', …)` serves `/v1/domains/trip/submissions`). Throw GateError
 * (or any error with `status` and `code`) for the API's `{ error: {...} }` shape.
 */
export type DomainRoutes = (app: FastifyInstance, ctx: DomainRouteContext) => void | Promise<void>;

/** A domain: its tools, its policy, and its store access. All methods are called from activities. */
export interface DomainAdapter {
  /** Unique among the registered domains; the `domain` of `POST /v1/runs`. */
  readonly name: string;
  readonly tools: readonly DomainTool[];
  /** Optional HTTP routes of the domain (see DomainRoutes); the API process registers them. */
  readonly routes?: DomainRoutes;
  /** Names of the tools the model may call now, given the domain session's state. */
  permittedTools(sessionId: string): Promise<string[]>;
  /** Policy and final input for one call whose args already passed the tool's schema. */
  plan(sessionId: string, tool: string, args: Record<string, unknown>): Promise<CallPlan>;
  /** Does the approved snapshot still match the store? Called right before execution. */
  recheck(sessionId: string, tool: string, input: Record<string, unknown>, snapshot: Snapshot): Promise<RecheckResult>;
  /** Validates a reviewer's modification through schema, domain validation and policy. */
  revise(
    sessionId: string,
    tool: string,
    input: Record<string, unknown>,
    patch: Record<string, unknown>,
  ): Promise<RevisionResult>;
  /**
   * Runs the tool. Must be idempotent by `idempotencyKey`: a second call with the same
   * key returns the first call's output and has no second effect. Throws `DomainToolError`
   * for the tool's own final refusal (reported once to the model as a failed call); any
   * other error (the store, the network) is retried, so it must not mean "the tool refused".
   */
  execute(sessionId: string, tool: string, input: Record<string, unknown>, idempotencyKey: string): Promise<ToolOutput>;
  /**
   * Optional: whether a call with this idempotency key has already run (its effect is
   * written). With it the gate re-checks the snapshot inside the tool's own activity,
   * one activity instead of a re-check and then the tool; without it, in two steps.
   */
  executed?(sessionId: string, tool: string, idempotencyKey: string): Promise<boolean>;
}

/** What a domain factory gets: the gate's own store, where a domain may keep its tables (or it uses its own). */
export interface DomainContext {
  db: Db;
}

/**
 * A domain as a worker or the API is given it: a ready adapter, or a factory over the
 * gate's store (migrate your tables, then return the adapter). Each process calls a
 * factory once at start.
 */
export type DomainSource = DomainAdapter | ((ctx: DomainContext) => DomainAdapter | Promise<DomainAdapter>);
