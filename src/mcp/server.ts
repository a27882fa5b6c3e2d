import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UsageError } from '../cli/errors';
import { defaultApiUrl, GateHttpClient } from '../cli/http';
import {
  checkApprovalStatus,
  CheckStatusInput,
  requestActionApproval,
  RequestApprovalInput,
  toolError,
  toolResult,
} from './tools';

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

/** The MCP server with the two gate tools (the seed's tool pair). Errors become tool errors, never crashes. */
export function createMcpServer(client: ClientFactory = () => envClient()): McpServer {
  const server = new McpServer({ name: 'approval-gate', version: '0.1.0' });
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
    async (input) => {
      try {
        return toolResult(await requestActionApproval(client(), input));
      } catch (err) {
        return toolError(err);
      }
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
