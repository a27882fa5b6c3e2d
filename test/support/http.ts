// One way for the tests to talk to the HTTP API: a request with a bearer key and a JSON body.

/** The answer: its status and its JSON body (the text when it is not JSON, undefined when empty). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read field by field
export type ApiResponse = { status: number; body: any };

/** Sends `method path` to the API at `baseUrl`, with `key` as the bearer token when given and `body` as JSON. */
export async function apiCall(
  baseUrl: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
): Promise<ApiResponse> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: the reviewer page's HTML, for one */
  }
  return { status: res.status, body: parsed };
}
