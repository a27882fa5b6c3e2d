import { ApplicationFailure } from '@temporalio/common';
import type { DomainRegistry } from '../../domain/registry';
import type { Model, ModelSpec } from '../../common/model-spec';
import { toolSpecFromZod } from '../../common/model-spec';
import { systemPrompt } from '../models/prompt';
import { ModelError } from '../models/errors';
import type { ConversationByRef } from '../../common/conversation-log';
import type { Message } from '../../common/conversation';
import type { RunActivities } from './run-contracts';
import { withHeartbeat } from './heartbeat';
import { planWithPolicy } from './plan-policy';
import type { PolicyActivityDeps } from './policy';

export interface RunActivityDeps {
  domains: DomainRegistry;
  createModel(spec: ModelSpec): Model;
  /** Reads a conversation named by ref (and writes its new messages to the log). */
  resolveConversation(c: ConversationByRef): Promise<Message[]>;
  /** The worker's rule file (and grants, and the audit store its judgements are recorded in). */
  policy?: PolicyActivityDeps;
}

/**
 * The loop's activities over the domain registry and the model factory. The model
 * call adds the system prompt (a provider concern) so the recorded conversation stays
 * the user's; ModelError and ModelExhausted become non-retryable failures.
 */
export function createRunActivities(
  deps: RunActivityDeps,
): Omit<
  RunActivities,
  'executeTool' | 'resolveReviewers' | 'saveConversation' | 'loadConversation' | 'storeMessages' | 'loadMessages'
> {
  return {
    async callModel({ model, messages: inline, conversation, tools }) {
      const messages = conversation ? await deps.resolveConversation(conversation) : (inline ?? []);
      const goal = messages.find((m) => m.role === 'user')?.content ?? '';
      const withPrompt =
        messages[0]?.role === 'system'
          ? messages
          : [
              {
                role: 'system' as const,
                content: systemPrompt(
                  goal,
                  tools.map((t) => t.name),
                ),
              },
              ...messages,
            ];
      try {
        // A model call can take a minute: heartbeats (see MODEL_ACTIVITY_OPTIONS) make a lost worker or a lost completion cost seconds, not the start-to-close timeout.
        return await withHeartbeat(() =>
          deps.createModel(model).next({ messages: model.kind === 'scripted' ? messages : withPrompt, tools }),
        );
      } catch (err) {
        if (err instanceof ModelError)
          throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
        throw err;
      }
    },
    async listPermittedTools({ domain, session_id }) {
      const adapter = deps.domains.get(domain);
      const permitted = new Set(await adapter.permittedTools(session_id));
      return adapter.tools
        .filter((t) => permitted.has(t.name))
        .map((t) => toolSpecFromZod(t.name, t.description, t.args));
    },
    async planToolCall(input) {
      const { domain, session_id, tool, args } = input;
      const adapter = deps.domains.get(domain);
      // Untrusted name from a model: matched against the registered list, never used as a property key.
      const def = adapter.tools.find((t) => t.name === tool);
      if (!def) return { policy: 'unknown_tool', known: adapter.tools.map((t) => t.name) };
      const parsed = def.args.safeParse(args);
      if (!parsed.success)
        return {
          policy: 'invalid_args',
          issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        };
      return planWithPolicy(deps.policy ?? {}, input, def, await adapter.plan(session_id, tool, parsed.data));
    },
  };
}
