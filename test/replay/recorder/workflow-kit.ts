// What the workflow paths (workflow-paths.ts, judged-workflow-paths.ts) share.

/** A user workflow (test/fixtures/library) that opens one gate, moved to its end. */
export interface WorkflowPath {
  /** The fixture workflow's type (frozen: it is in the file name and the history). */
  type: string;
  args: Record<string, unknown>;
  /** The parent's own GateTenant, which its gates inherit when the call names no tenant. */
  tenant?: string;
  /** How the workflow must end (its outcome's status); a recording that went elsewhere is refused. */
  expect: 'approved' | 'executed' | 'denied';
  /** Who must have decided, when not the finance reviewers' votes (a rule decided at creation). */
  decidedBy?: string;
  /** The patch markers the parent's and its gate's histories must hold (see docs/upgrading.md, patch schedule). */
  patches?: { parent?: string[]; gate?: string[] };
  /** The Slack channels the gate must have been told in (the worker's GATE_NOTIFY paths). */
  told?: string[];
}
