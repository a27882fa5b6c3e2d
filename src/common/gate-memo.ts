import type { GateInput } from './gate-state';

/**
 * Memo written when a gate starts: what the Web UI and a worker-less read show, and
 * what tells a creation replay from a reused key. Built here once for gates started by
 * the API and for the child gates of agent runs.
 */
export interface GateMemo {
  request_id: string;
  /** Digest of the create body: equal on a replay, different when a key is reused. */
  create_sha256: string;
  /** Random per create call: the caller whose nonce is in the memo started the workflow. */
  creation_nonce: string;
  summary: string;
  action: string;
  target: string;
  agent_id: string;
  payload_sha256: string;
  expires_at: string;
  approvals_required: number;
  executor: string;
  run_id?: string;
}

export function gateMemo(input: GateInput, nonce: string): GateMemo {
  const p = input.payload;
  return {
    request_id: p.request_id,
    create_sha256: input.create_sha256,
    creation_nonce: nonce,
    summary: p.summary,
    action: p.action,
    target: p.target,
    agent_id: p.agent_id,
    payload_sha256: input.payload_sha256,
    expires_at: p.expires_at,
    approvals_required: input.approvals_required,
    executor: input.executor,
    ...(input.run_id ? { run_id: input.run_id } : {}),
  };
}

/** One-line summary and markdown details for the Temporal Web UI (args truncated: the full payload is the input). */
export function gateUiText(input: GateInput): { staticSummary: string; staticDetails: string } {
  const p = input.payload;
  const json = (v: unknown, max: number): string => {
    const s = JSON.stringify(v);
    return s.length > max ? `${s.slice(0, max)}…` : s;
  };
  return {
    staticSummary: `${p.action} on ${p.target}: ${p.summary}`.slice(0, 200),
    staticDetails: [
      `**${p.action}** on \`${p.target}\` by \`${p.agent_id}\``,
      p.summary,
      `approvals required: ${input.approvals_required} · expires ${p.expires_at}`,
      `blast radius: \`${json(p.blast_radius, 500)}\``,
      `args: \`${json(p.args, 2000)}\``,
      `payload_sha256: \`${input.payload_sha256}\``,
    ].join('\n\n'),
  };
}
