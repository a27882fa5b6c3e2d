import { ModelError, ModelUnavailable } from './errors';

/** How much of a provider's error body goes into an error message. */
const BODY_EXCERPT_CHARS = 500;
/** A model call that takes longer than this is abandoned and retried. */
const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * POSTs JSON to a model provider and returns the parsed JSON body. Throws `ModelError`
 * (non-retryable) for a 4xx other than 408 and 429; `ModelUnavailable` (retryable) for 408,
 * 429, 5xx, network errors, timeouts and a body that is not JSON. Never puts request
 * headers (the API key) into an error.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new ModelUnavailable(`model request to ${url} failed: ${(err as Error).message}`, { cause: err });
  }
  const text = await res.text();
  if (!res.ok) {
    const message = `model provider answered HTTP ${res.status}: ${excerpt(text)}`;
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
      throw new ModelError(message, { status: res.status });
    }
    throw new ModelUnavailable(message, { status: res.status });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ModelUnavailable(
      `model provider answered HTTP ${res.status} with a body that is not JSON: ${excerpt(text)}`,
    );
  }
}

/** `https://x/v1/` + `/chat/completions` without a doubled slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}…` : flat || '(empty body)';
}
