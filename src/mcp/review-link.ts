import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { defaultApiUrl } from '../cli/http';

/**
 * The reviewer page's link to one request, the same link every notice carries:
 * `<GATE_PUBLIC_URL, else the API URL>/#/approvals/<id>`. Opening it decides nothing;
 * deciding there needs a reviewer's sign-in.
 */
export function reviewUrl(id: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = (env.GATE_PUBLIC_URL || defaultApiUrl(env)).replace(/\/+$/, '');
  return `${base}/#/approvals/${encodeURIComponent(id)}`;
}

/** What became of asking the client to open the review link. Never a decision. */
export type ReviewPrompt =
  | { asked: false; why: string }
  | { asked: true; answer: 'accept' | 'decline' | 'cancel' }
  | { asked: true; answer: 'none'; error: string };

/** How long a tool call waits for the person to answer the client's "open this link?" prompt. */
export const DEFAULT_PROMPT_TIMEOUT_MS = 30_000;

/**
 * Asks a client that declared URL-mode elicitation (MCP protocol 2025-11-25,
 * `capabilities.elicitation.url`) to offer its user the review link. The answer only says
 * whether the user agreed to open it: it is reported back to the agent and changes
 * nothing at the gate, where only a signed-in reviewer's decision counts.
 */
export async function askToOpen(
  server: Server,
  link: { url: string; summary: string },
  opts: { relatedRequestId?: RequestId; timeoutMs?: number } = {},
): Promise<ReviewPrompt> {
  if (!server.getClientCapabilities()?.elicitation?.url)
    return { asked: false, why: 'the client does not declare URL-mode elicitation' };
  try {
    const r = await server.elicitInput(
      {
        mode: 'url',
        elicitationId: randomUUID(),
        url: link.url,
        message: `A person must review this action before it runs: ${link.summary}. Open the reviewer page to see it; only a signed-in reviewer's decision there counts.`,
      },
      { relatedRequestId: opts.relatedRequestId, timeout: opts.timeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS },
    );
    return { asked: true, answer: r.action };
  } catch (err) {
    return { asked: true, answer: 'none', error: err instanceof Error ? err.message : String(err) };
  }
}
