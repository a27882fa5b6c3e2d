import { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicModel } from './anthropic';
import { ModelError } from './errors';
import { createOpenAIModel, OPENAI_DEFAULT_BASE_URL } from './openai';
import { createScriptedModel } from './scripted';
import type { Model, ModelSpec } from '../../common/model-spec';

/** Env vars each provider reads: the key is required, the base URL optional. */
const PROVIDER_ENV = {
  openai: { key: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL', defaultBaseUrl: OPENAI_DEFAULT_BASE_URL },
  anthropic: { key: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL', defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL },
} as const;

/**
 * The Model for a validated spec. Real providers read their key from `env`
 * (OPENAI_API_KEY, ANTHROPIC_API_KEY) and their base URL from OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL, else the provider's (never from the request: see ProviderModelSpec). Throws `ModelError` naming
 * the variable when the key is missing, before any request is made.
 */
export function createModel(spec: ModelSpec, env: Record<string, string | undefined> = process.env): Model {
  if (spec.kind === 'scripted') return createScriptedModel(spec);
  const vars = PROVIDER_ENV[spec.kind];
  const apiKey = env[vars.key]?.trim();
  if (!apiKey)
    throw new ModelError(`${vars.key} is not set: a model of kind "${spec.kind}" needs it (or use kind "scripted")`);
  const config = {
    model: spec.model,
    apiKey,
    baseUrl: env[vars.baseUrl]?.trim() || vars.defaultBaseUrl,
    max_tokens: spec.max_tokens,
  };
  return spec.kind === 'openai' ? createOpenAIModel(config) : createAnthropicModel(config);
}

export { ModelError, ModelExhausted, ModelUnavailable } from './errors';
export { systemPrompt } from './prompt';
export { renderTemplate } from './scripted';
export {
  ModelSpec,
  ProviderModelSpec,
  ScriptedModelSpec,
  ScriptedTurn,
  toolSpecFromZod,
} from '../../common/model-spec';
export type { Model, ModelInput, ToolSpec } from '../../common/model-spec';
export { fromOpenAIResponse, toOpenAIRequest } from './openai';
export { fromAnthropicResponse, toAnthropicRequest } from './anthropic';
