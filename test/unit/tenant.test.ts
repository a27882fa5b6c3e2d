import { checkTenant, DEFAULT_TENANT, scopeOf, visibleTo } from '../../src/common/tenant';
import { quote, scopeClauses, visibilityFilter, type GateSummary } from '../../src/client/gate-views';

describe('tenant ids', () => {
  it.each(['default', 'acme', 'team-7', 'a', 'x_y', 'a'.repeat(63)])('accepts %p', (t) => {
    expect(checkTenant(t)).toBe(t);
  });

  it.each(['', 'Acme', "a'b", 'a b', '-x', 'a"b', 'a\\b', 'a'.repeat(64), "x' OR 'a'='a", 'é'])('refuses %p', (t) => {
    expect(() => checkTenant(t)).toThrow(/tenant .* must be 1-63 characters/);
  });
});

describe('scopes', () => {
  it('gives reviewers the tenant and agents only their own', () => {
    expect(scopeOf({ tenant: 'acme', kind: 'reviewer', id: 'rev-1' })).toEqual({ tenant: 'acme' });
    expect(scopeOf({ tenant: 'acme', kind: 'agent', id: 'bot' })).toEqual({ tenant: 'acme', agentId: 'bot' });
  });

  it.each([
    { scope: { tenant: 'acme' }, owner: { tenant: 'acme', agentId: 'bot' }, visible: true },
    { scope: { tenant: 'acme' }, owner: { tenant: 'other', agentId: 'bot' }, visible: false },
    { scope: { tenant: 'acme', agentId: 'bot' }, owner: { tenant: 'acme', agentId: 'bot' }, visible: true },
    { scope: { tenant: 'acme', agentId: 'bot' }, owner: { tenant: 'acme', agentId: 'bot-2' }, visible: false },
    { scope: { tenant: 'acme', agentId: 'bot' }, owner: { tenant: 'other', agentId: 'bot' }, visible: false },
    // Gates started without a tenant (before tenants, or by another service) are the default tenant's.
    { scope: { tenant: DEFAULT_TENANT }, owner: { agentId: 'bot' }, visible: true },
    { scope: { tenant: 'acme' }, owner: { agentId: 'bot' }, visible: false },
    { scope: { tenant: DEFAULT_TENANT, agentId: 'bot' }, owner: { tenant: '' }, visible: false },
  ])('$scope sees $owner: $visible', ({ scope, owner, visible }) => {
    expect(visibleTo(scope, owner)).toBe(visible);
  });
});

describe('visibility queries stay inside the tenant', () => {
  it('puts the tenant clause first and ANDs every filter after it', () => {
    const { query } = visibilityFilter({ scope: { tenant: 'acme' }, status: 'requested', target: 'x' });
    expect(query).toBe(
      "WorkflowType = 'approvalGateWorkflow' AND GateTenant = 'acme' AND GateStatus = 'requested' AND ExecutionStatus = 'Running' AND GateTarget = 'x'",
    );
  });

  it('lists a live status (requested, approved) only from open workflows, a final one from any', () => {
    for (const status of ['requested', 'approved'] as const) {
      const { query, keep } = visibilityFilter({ status });
      expect(query).toContain(`GateStatus = '${status}' AND ExecutionStatus = 'Running'`);
      expect(keep({ status, closed: true } as GateSummary)).toBe(false);
      expect(keep({ status, closed: false } as GateSummary)).toBe(true);
    }
    for (const status of ['denied', 'expired', 'consumed', 'cancelled'] as const)
      expect(visibilityFilter({ status }).query).not.toContain('ExecutionStatus');
  });

  it('lets the default tenant own workflows that carry no tenant', () => {
    expect(scopeClauses({ tenant: DEFAULT_TENANT })).toEqual(["(GateTenant = 'default' OR GateTenant IS NULL)"]);
  });

  it('pins an agent to its own requests', () => {
    expect(scopeClauses({ tenant: 'acme', agentId: 'bot' })).toEqual(["GateTenant = 'acme'", "GateAgent = 'bot'"]);
  });

  it('refuses a tenant that could change the query instead of quoting it', () => {
    expect(() => scopeClauses({ tenant: "acme' OR GateTenant = 'other" })).toThrow(/tenant/);
  });

  it.each(["x' OR WorkflowType = 'approvalGateWorkflow", "x\\' OR 1=1 OR GateTarget = '", "') OR ('a' = 'a"])(
    'keeps the hostile target %p inside one quoted literal',
    (target) => {
      const { query } = visibilityFilter({ scope: { tenant: 'acme' }, target });
      // Whatever the target holds, the query is the fixed prefix and one (escaped) literal or prefix match.
      expect(query.startsWith("WorkflowType = 'approvalGateWorkflow' AND GateTenant = 'acme' AND GateTarget ")).toBe(
        true,
      );
      const literal = query.slice(query.indexOf('GateTarget ') + 'GateTarget '.length).replace(/^(=|STARTS_WITH) /, '');
      expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
      // No unescaped quote inside the literal.
      expect(/(^|[^\\])'/.test(literal.slice(1, -1).replace(/\\\\/g, ''))).toBe(false);
    },
  );

  it('drops any listed result outside the scope, whatever the query returned', () => {
    const { keep } = visibilityFilter({ scope: { tenant: 'acme', agentId: 'bot' } });
    const row = { tenant: 'acme', agent_id: 'bot' } as Parameters<typeof keep>[0];
    expect(keep(row)).toBe(true);
    expect(keep({ ...row, tenant: 'other' })).toBe(false);
    expect(keep({ ...row, agent_id: 'bot-2' })).toBe(false);
  });

  it('quotes quotes and backslashes', () => {
    expect(quote("a'b\\c")).toBe("'a\\'b\\\\c'");
  });
});
