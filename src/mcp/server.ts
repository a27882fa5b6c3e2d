import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UsageError } from '../cli/errors';
import type { Json } from '../cli/http';
import { defaultApiUrl, GateHttpClient } from '../cli/http';
import {
  checkApprovalStatus,
  CheckStatusInput,
  requestActionApproval,
  RequestApprovalInput,
  toolError,
  toolResult,
} from './tools';
import { askToOpen, reviewUrl } from './review-link';
import { packageVersion } from '../package-version';

/** Makes the API client for one tool call; throws when no agent key is configured. */
export type ClientFactory = () => GateHttpClient;

/** GATE_API_URL (or GATE_PORT) and the agent key in GATE_API_KEY, read at each call. */
export function envClient(env: NodeJS.ProcessEnv = process.env): GateHttpClient {
  if (!env.GATE_API_KEY)
    throw new UsageError(
      'GATE_API_KEY is not set: the MCP server needs an agent key (gate keys create --kind agent --id NAME)',
    );
  return new GateHttpClient({ baseUrl: defaultApiUrl(env), key: env.GATE_API_KEY });
}

/** Options of `createMcpServer`. */
export interface McpServerOptions {
  /** Where `review_url` points (GATE_PUBLIC_URL, else GATE_API_URL / GATE_PORT); read at each call. */
  env?: NodeJS.ProcessEnv;
  /** How long a create waits for the user's answer to the client's "open the review link?" prompt. */
  promptTimeoutMs?: number;
}

/**
 * The MCP server with the two gate tools (the seed's tool pair). Errors become tool errors,
 * never crashes. A create answers with `review_url`, and a client that declares URL-mode
 * elicitation is asked to open it; its answer is reported, never taken as a decision.
 */
export function createMcpServer(client: ClientFactory = () => envClient(), opts: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'approval-gate', version: packageVersion() });
  server.registerTool(
    'request_action_approval',
    {
      title: 'Request human approval for an action',
      description:
        'Submit an action for human approval before running it. Returns an approval_id with status "requested". ' +
        'Do not run the action until check_approval_status says it is approved; then the executor consumes it exactly once.',
      inputSchema: RequestApprovalInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (input, extra) => {
      let created: Json;
      try {
        created = await requestActionApproval(client(), input);
      } catch (err) {
        return toolError(err);
      }
      const id = String(created.approval_id);
      const url = reviewUrl(id, opts.env);
      const out: Json = { ...created, review_url: url };
      if (created.status === 'requested') {
        out.review_prompt = await askToOpen(
          server.server,
          { url, summary: input.summary },
          { relatedRequestId: extra.requestId, timeoutMs: opts.promptTimeoutMs },
        );
      }
      return toolResult(out);
    },
  );
  server.registerTool(
    'check_approval_status',
    {
      title: 'Check an approval request',
      description:
        'Read-only, safe to poll: the current status (requested, approved, denied, expired, consumed, cancelled, invalidated) and what to do next. Never consumes the approval.',
      inputSchema: CheckStatusInput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    async ({ approval_id }) => {
      try {
        return toolResult(await checkApprovalStatus(client(), approval_id));
      } catch (err) {
        return toolError(err);
      }
    },
  );
  return server;
}

/** `gate mcp`: serves the tools on stdio until stdin closes or a SIGINT/SIGTERM arrives. Logs go to stderr only. */
export async function runMcpServer(): Promise<void> {
  const server = createMcpServer();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    const stop = (): void => void server.close();
    process.stdin.once('end', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.connect(transport);
  process.stderr.write(`gate mcp: serving request_action_approval and check_approval_status for ${defaultApiUrl()}\n`);
  await closed;
}
