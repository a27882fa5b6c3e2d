// Standing grants as a vote asks for them and as a quorum gives them: the decision
// (src/common/decision.ts) and the gate's state (src/common/gate-types.ts) both carry them.

/** A standing grant asked for in an approving vote (see `GrantRequest`), its duration in seconds. */
export interface VoteGrant {
  for_seconds: number;
  max_uses: number;
  when?: string;
}

/** A standing grant the gate's full quorum gave: what the API stores (src/store/grant-store.ts). */
export interface IssuedGrant extends VoteGrant {
  grant_id: string;
  /** The gate whose approval gave it. */
  request_id: string;
  rule_id: string;
  policy_sha256: string;
  agent_id: string;
  action: string;
  target: string;
  reviewers: string[];
  issued_at: string;
  expires_at: string;
}
