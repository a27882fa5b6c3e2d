import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from '../../src/worker/activities';
import { routesOf, startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { tripDomain } from '../../examples/trip';
import { openSqlite, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { GrantStore } from '../../src/store/grant-store';
import { randomUUID } from 'node:crypto';
import { loadPolicyFile } from '../../src/policy/load-file';
import { generateSigningKey } from '../../src/evidence/signing-keys';
import { freePort } from '../support/ports';
import { startTestWorker, type RunningWorker } from '../support/temporal';
import { evidence } from './api-harness';
import { waitFor } from '../support/wait';
import { apiCall, type ApiResponse } from '../support/http';

/**
 * Every route of the API against every kind of caller. The routes come from the server
 * itself, so a route added without a MATRIX entry fails the first test. Columns are the
 * callers (COLUMNS); a new column is one more entry there and, where a route needs it,
 * a value in that route's spec.
 *
 * Tenant A (`acme`) owns everything the calls name; tenant B (`globex`) is the other tenant.
 * The API and the worker run with one rule file: `stripe.refund.*` (the requests' action)
 * and `trip.*` (the runs' gated submit) are decided by `finance`, which A's reviewer has
 * and `acme-rev-norole` has not.
 */

let api: RunningApi;
let worker: RunningWorker;
let db: Db;
const K = {
  aAgent: '',
  aAgent2: '',
  aReviewer: '',
  bAgent: '',
  bReviewer: '',
  /** Tenant A's keys of each kind that no longer work: revoked, and replaced by a rotation with no grace. */
  revokedAgent: '',
  revokedReviewer: '',
  rotatedAgent: '',
  rotatedReviewer: '',
  /** Tenant A's keys of each kind past their expiry. */
  expiredAgent: '',
  expiredReviewer: '',
  /** A reviewer of tenant A without the role the rule file asks for `stripe.refund.*` and `trip.*`. */
  aReviewerNoRole: '',
};

type Res = ApiResponse;

const call = (method: string, p: string, key?: string, body?: unknown): Promise<ApiResponse> =>
  apiCall(api.url, method, p, key, body);

const scenario = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'scenarios', `${name}.json`), 'utf8'));

// --- what tenant A owns -------------------------------------------------------------------

/** A pending request of A's first agent. */
async function pendingRequest(): Promise<{ id: string; sha: string }> {
  const r = await call('POST', '/v1/approvals', K.aAgent, evidence());
  expect(r.status).toBe(201);
  return { id: r.body.request_id, sha: r.body.payload_sha256 };
}

/** An approved request of A's first agent. */
async function approvedRequest(): Promise<{ id: string; sha: string }> {
  const req = await pendingRequest();
  const d = await call('POST', `/v1/approvals/${req.id}/decision`, K.aReviewer, {
    decision: 'approve',
    payload_sha256: req.sha,
  });
  expect(d.status).toBe(200);
  return req;
}

/** A run of A's first agent, waiting on its approval. */
async function waitingRun(): Promise<string> {
  const r = await call('POST', '/v1/runs', K.aAgent, scenario('trip-approve'));
  expect(r.status).toBe(201);
  return r.body.run_id;
}

/** A decision on the pending gate of one of A's runs (under the worker's `trip.*` rule). */
async function runGateDecision(): Promise<Target> {
  const runId = await waitingRun();
  const id = await waitFor("the run's pending gate", async () => {
    const v = await call('GET', `/v1/runs/${runId}`, K.aAgent);
    return v.body.pending_approvals?.[0]?.request_id as string | undefined;
  });
  const g = await waitFor('the gate requested', async () => {
    const r = await call('GET', `/v1/approvals/${id}`, K.aReviewer);
    return r.status === 200 && r.body.status === 'requested' ? r.body : undefined;
  });
  expect(g.payload.reviewer_policy).toMatchObject({ rule: 'trip.*', roles: ['finance'] });
  return {
    path: `/v1/approvals/${id}/decision`,
    body: { decision: 'approve', payload_sha256: g.payload_sha256, args_sha256: g.final_args_sha256 },
    id,
  };
}

/** A standing grant of tenant A, stored as an approval's quorum would give it. */
async function grantOfA(): Promise<string> {
  const grantId = `grt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const now = new Date();
  await new GrantStore(db).issue(
    {
      grant_id: grantId,
      request_id: 'appr_matrix',
      rule_id: 'matrix',
      policy_sha256: '0'.repeat(64),
      agent_id: 'acme-bot',
      action: 'stripe.refund.create',
      target: 'ch_matrix',
      reviewers: ['acme-rev'],
      for_seconds: 3600,
      max_uses: 1,
      issued_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 3600_000).toISOString(),
    },
    'acme',
  );
  return grantId;
}

/** A's completed trip run: its submission is what the domain listing must keep inside A. */
let submittedRequestId = '';

const MISSING_REQUEST = 'appr_000000000000000000000000';
const MISSING_RUN = 'run_00000000000000000000';

// --- the matrix ---------------------------------------------------------------------------

type Who = 'public' | 'agent' | 'reviewer' | 'any';

/** One call on something A owns. `id` is the gate or run the path names (for the 404 comparison). */
interface Target {
  path: string;
  body?: unknown;
  id?: string;
  missing?: string;
  /** For lists: what must be listed for A and never for anyone else. */
  listed?: (body: Res['body']) => boolean;
}

interface RouteSpec {
  /** Which key kind the route accepts. */
  who: Who;
  /** `item` names one of A's gates, runs or grants; `list` lists; `create` makes a new one; `tool` reads no tenant's data. */
  shape: 'public' | 'create' | 'list' | 'item' | 'tool';
  /** A fresh call for each cell, so no cell sees another's effects. */
  target(): Promise<Target>;
  /** What the owner (right kind, own tenant, own request) gets. */
  own: number;
  /** The owner's error code, when `own` is a refusal that still shows the call got through to the gate or run. */
  ownCode?: string;
  /** The route is a decision the request's rule may restrict to roles. */
  roleGated?: boolean;
}

const requestItem =
  (suffix: string, make = pendingRequest, body?: (sha: string) => unknown) =>
  async () => {
    const r = await make();
    return {
      path: `/v1/approvals/${r.id}${suffix}`,
      body: body?.(r.sha),
      id: r.id,
      missing: `/v1/approvals/${MISSING_REQUEST}${suffix}`,
    };
  };

const runItem = (suffix: string, body?: unknown) => async () => {
  const id = await waitingRun();
  return { path: `/v1/runs/${id}${suffix}`, body, id, missing: `/v1/runs/${MISSING_RUN}${suffix}` };
};

const MATRIX: Record<string, RouteSpec> = {
  'GET /healthz': { who: 'public', shape: 'public', target: async () => ({ path: '/healthz' }), own: 200 },
  'GET /': { who: 'public', shape: 'public', target: async () => ({ path: '/' }), own: 200 },
  // Scrape target: counts only, no request data; unauthenticated like most Prometheus targets (docs/production.md, Metrics).
  'GET /metrics': { who: 'public', shape: 'public', target: async () => ({ path: '/metrics' }), own: 200 },
  // Whether sign-in is on; `/auth/login` and `/auth/callback` exist only with OIDC configured (not here).
  'GET /auth/oidc': { who: 'public', shape: 'public', target: async () => ({ path: '/auth/oidc' }), own: 200 },
  'POST /v1/approvals': {
    who: 'agent',
    shape: 'create',
    target: async () => ({ path: '/v1/approvals', body: evidence() }),
    own: 201,
  },
  'GET /v1/approvals': {
    who: 'any',
    shape: 'list',
    target: async () => {
      const { id } = await pendingRequest();
      return {
        path: '/v1/approvals?status=requested&limit=500',
        listed: (b) => (b.approvals as { request_id: string }[]).some((a) => a.request_id === id),
      };
    },
    own: 200,
  },
  'GET /v1/approvals/:id': { who: 'any', shape: 'item', target: requestItem(''), own: 200 },
  'POST /v1/approvals/:id/decision': {
    who: 'reviewer',
    shape: 'item',
    target: requestItem('/decision', pendingRequest, (sha) => ({ decision: 'approve', payload_sha256: sha })),
    own: 200,
    roleGated: true,
  },
  'POST /v1/approvals/:id/consume': {
    who: 'agent',
    shape: 'item',
    target: requestItem('/consume', approvedRequest),
    own: 200,
  },
  'POST /v1/approvals/:id/cancel': {
    who: 'agent',
    shape: 'item',
    target: requestItem('/cancel', pendingRequest, () => ({ reason: 'plan changed' })),
    own: 200,
  },
  'GET /v1/approvals/:id/audit': { who: 'any', shape: 'item', target: requestItem('/audit'), own: 200 },
  'GET /v1/approvals/:id/evidence': { who: 'any', shape: 'item', target: requestItem('/evidence'), own: 200 },
  // Public keys only: an auditor verifies bundles without holding an API key.
  'GET /v1/signing-keys': {
    who: 'public',
    shape: 'public',
    target: async () => ({ path: '/v1/signing-keys' }),
    own: 200,
  },
  'POST /v1/runs': {
    who: 'agent',
    shape: 'create',
    target: async () => ({ path: '/v1/runs', body: scenario('trip-approve') }),
    own: 201,
  },
  'GET /v1/runs/:id': { who: 'any', shape: 'item', target: runItem(''), own: 200 },
  // The run asks nothing, so the owner's answer reaches the run and is refused there (409), not at the door.
  'POST /v1/runs/:id/interactions/:iid': {
    who: 'reviewer',
    shape: 'item',
    target: runItem('/interactions/int_none', { value: true }),
    own: 409,
    ownCode: 'unknown_interaction',
  },
  'POST /v1/runs/:id/cancel': { who: 'agent', shape: 'item', target: runItem('/cancel', {}), own: 202 },
  'GET /v1/runs/:id/audit': { who: 'any', shape: 'item', target: runItem('/audit'), own: 200 },
  // The rule file on a request the caller writes: no tenant's data, so every tenant's reviewer gets the same answer.
  'POST /v1/policy/explain': {
    who: 'reviewer',
    shape: 'tool',
    target: async () => ({ path: '/v1/policy/explain', body: { action: 'stripe.refund.create', args: {} } }),
    own: 200,
  },
  'GET /v1/grants': {
    who: 'reviewer',
    shape: 'list',
    target: async () => {
      const id = await grantOfA();
      return {
        path: '/v1/grants',
        listed: (b) => (b.grants as { grant_id: string }[]).some((g) => g.grant_id === id),
      };
    },
    own: 200,
  },
  'DELETE /v1/grants/:id': {
    who: 'reviewer',
    shape: 'item',
    target: async () => {
      const id = await grantOfA();
      return { path: `/v1/grants/${id}`, id, missing: `/v1/grants/${MISSING_REQUEST}` };
    },
    own: 200,
  },
  'GET /v1/domains/trip/submissions': {
    who: 'any',
    shape: 'list',
    target: async () => ({
      path: '/v1/domains/trip/submissions',
      listed: (b) => (b as { request_id: string }[]).some((s) => s.request_id === submittedRequestId),
    }),
    own: 200,
  },
};

/** Tenant A's keys that a route accepts, the owner first. */
function ownKeys(who: Who): string[] {
  if (who === 'agent') return [K.aAgent];
  if (who === 'reviewer') return [K.aReviewer];
  return [K.aAgent, K.aReviewer];
}

/** Tenant B's keys that a route accepts. */
function otherTenantKeys(who: Who): string[] {
  if (who === 'agent') return [K.bAgent];
  if (who === 'reviewer') return [K.bReviewer];
  return [K.bAgent, K.bReviewer];
}

/** A 404 for something that exists must be the 404 for something that does not, word for word. */
async function expectSameAsMissing(r: Res, t: Target, method: string, key: string): Promise<void> {
  const missing = await call(method, t.missing!, key, t.body);
  expect(missing.status).toBe(404);
  expect(r.status).toBe(404);
  const missingId = t.missing!.includes(MISSING_RUN) ? MISSING_RUN : MISSING_REQUEST;
  expect(JSON.stringify(r.body).split(t.id!).join('<id>')).toBe(
    JSON.stringify(missing.body).split(missingId).join('<id>'),
  );
}

type Column = (method: string, spec: RouteSpec) => Promise<'n/a' | void>;

const COLUMNS: Record<string, Column> = {
  no_key: async (method, spec) => {
    const t = await spec.target();
    const r = await call(method, t.path, undefined, t.body);
    if (spec.who === 'public') return void expect(r.status).toBe(spec.own);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthenticated');
  },
  wrong_kind: async (method, spec) => {
    if (spec.who !== 'agent' && spec.who !== 'reviewer') return 'n/a';
    const t = await spec.target();
    const r = await call(method, t.path, spec.who === 'agent' ? K.aReviewer : K.aAgent, t.body);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('wrong_key_kind');
  },
  other_tenant: async (method, spec) => {
    if (spec.shape === 'public') return 'n/a';
    for (const key of otherTenantKeys(spec.who)) {
      const t = await spec.target();
      if (spec.shape === 'list') {
        // Wait until A itself sees it, so its absence for B is not just visibility lag.
        await waitFor('the row listed for its owner', async () => {
          const own = await call(method, t.path, K.aReviewer);
          return own.status === 200 && t.listed!(own.body) ? true : undefined;
        });
        const r = await call(method, t.path, key);
        expect(r.status).toBe(200);
        expect(t.listed!(r.body)).toBe(false);
      } else if (spec.shape === 'tool') {
        const r = await call(method, t.path, key, t.body);
        expect(r.status).toBe(spec.own);
      } else if (spec.shape === 'create') {
        // The same body from B makes B's own (a different id); it never answers with A's.
        const a = await call(method, t.path, K.aAgent, t.body);
        const b = await call(method, t.path, key, t.body);
        expect(b.status).toBe(spec.own);
        const idOf = (x: Res) => x.body.request_id ?? x.body.run_id;
        expect(idOf(b)).not.toBe(idOf(a));
      } else {
        await expectSameAsMissing(await call(method, t.path, key, t.body), t, method, key);
      }
    }
  },
  // Keys that worked once: refused at the door like no key, before anything about the target is looked at.
  revoked_key: async (method, spec) => {
    if (spec.who === 'public') return 'n/a';
    const kinds = spec.who === 'any' ? (['agent', 'reviewer'] as const) : [spec.who];
    for (const kind of kinds) {
      const revoked = kind === 'agent' ? K.revokedAgent : K.revokedReviewer;
      const rotated = kind === 'agent' ? K.rotatedAgent : K.rotatedReviewer;
      const expired = kind === 'agent' ? K.expiredAgent : K.expiredReviewer;
      for (const [key, why] of [
        [revoked, /was revoked/],
        [rotated, /replaced by a rotation/],
        [expired, /has expired/],
      ] as const) {
        const t = await spec.target();
        const r = await call(method, t.path, key, t.body);
        expect(r.status).toBe(401);
        expect(r.body.error).toMatchObject({ code: 'unauthenticated', message: expect.stringMatching(why) });
      }
    }
  },
  // A reviewer of the right tenant without a role the request's rule names: 403 with the roles, and audited.
  // Both kinds of gate behind the route: one the API created, and one a run opened under the worker's rule file.
  ineligible_role: async (method, spec) => {
    if (!spec.roleGated) return 'n/a';
    const t = await spec.target();
    const runGate = await runGateDecision();
    for (const target of [t, runGate]) {
      const r = await call(method, target.path, K.aReviewerNoRole, target.body);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'ineligible_reviewer', details: { roles_needed: ['finance'] } });
      const trail = await waitFor('the refused decision in the trail', async () => {
        const a = await call('GET', `/v1/approvals/${target.id!}/audit`, K.aReviewer);
        const refused = (a.body.events as { event_type: string; actor_id: string; data: { refusal?: string } }[]).find(
          (e) => e.event_type === 'decision.refused' && e.actor_id === 'acme-rev-norole',
        );
        return refused;
      });
      expect(trail.data.refusal).toBe('IneligibleReviewer');
      expect((await call('GET', `/v1/approvals/${target.id!}`, K.aReviewer)).body.status).toBe('requested');
    }
  },
  // Inside one tenant an agent sees only its own requests and runs (reviewers see the whole queue).
  other_agent: async (method, spec) => {
    if (spec.who !== 'agent' && spec.who !== 'any') return 'n/a';
    if (spec.shape === 'public' || spec.shape === 'create' || spec.shape === 'tool') return 'n/a';
    const t = await spec.target();
    if (spec.shape === 'list') {
      await waitFor('the row listed for its owner', async () => {
        const own = await call(method, t.path, K.aAgent);
        return own.status === 200 && t.listed!(own.body) ? true : undefined;
      });
      const r = await call(method, t.path, K.aAgent2);
      expect(r.status).toBe(200);
      return void expect(t.listed!(r.body)).toBe(false);
    }
    await expectSameAsMissing(await call(method, t.path, K.aAgent2, t.body), t, method, K.aAgent2);
  },
  own: async (method, spec) => {
    const keys = spec.who === 'public' ? [undefined] : ownKeys(spec.who);
    for (const key of keys) {
      const t = await spec.target();
      if (spec.shape === 'list') {
        const r = await waitFor('the row listed', async () => {
          const x = await call(method, t.path, key);
          return x.status === 200 && t.listed!(x.body) ? x : undefined;
        });
        expect(r.status).toBe(spec.own);
        continue;
      }
      const r = await call(method, t.path, key, t.body);
      expect(r.status).toBe(spec.own);
      if (spec.ownCode) expect(r.body.error.code).toBe(spec.ownCode);
    }
  },
};

beforeAll(async () => {
  process.env.GATE_LOG_LEVEL = 'silent';
  const dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-matrix-'));
  db = openSqlite(path.join(dir, 'gate.db'));
  const policyFile = path.join(dir, 'rules.yaml');
  fs.writeFileSync(
    policyFile,
    'rules:\n  - action: stripe.refund.*\n    roles: [finance]\n  - action: trip.*\n    roles: [finance]\n',
  );
  // The worker reads the same file as the API (createGateWorker loads GATE_POLICY_FILE so).
  const { activities } = await createActivities({ db, domains: [tripDomain], policy: loadPolicyFile(policyFile) });
  worker = await startTestWorker(activities);
  const cfg = {
    ...loadConfig({}),
    dataDir: dir,
    port: await freePort(),
    temporalAddress: process.env.TEMPORAL_ADDRESS,
    taskQueue: worker.taskQueue,
    policyFile,
    signingKeyFile: path.join(dir, 'signing.pem'),
  };
  generateSigningKey(cfg.signingKeyFile);
  api = await startApiServer(cfg, { domains: [tripDomain] });
  const store = new KeyStore(db);
  await store.migrate();
  // Keys that expire in two seconds: past their expiry before any cell runs (checked at the end of this hook).
  const expiresAt = new Date(Date.now() + 2000).toISOString();
  K.expiredAgent = (await store.create('agent', 'acme-expired-agent', { tenant: 'acme', expiresAt })).key;
  K.expiredReviewer = (
    await store.create('reviewer', 'acme-expired-reviewer', { tenant: 'acme', roles: ['finance'], expiresAt })
  ).key;
  K.aAgent = (await store.create('agent', 'acme-bot', { tenant: 'acme' })).key;
  K.aAgent2 = (await store.create('agent', 'acme-bot-2', { tenant: 'acme' })).key;
  K.aReviewer = (await store.create('reviewer', 'acme-rev', { tenant: 'acme', roles: ['finance'] })).key;
  K.aReviewerNoRole = (await store.create('reviewer', 'acme-rev-norole', { tenant: 'acme', roles: ['support'] })).key;
  for (const kind of ['agent', 'reviewer'] as const) {
    const revoked = (await store.create(kind, `acme-revoked-${kind}`, { tenant: 'acme', roles: ['finance'] })).key;
    await store.revoke(kind, `acme-revoked-${kind}`);
    const rotated = (await store.create(kind, `acme-rotated-${kind}`, { tenant: 'acme', roles: ['finance'] })).key;
    await store.rotate(kind, `acme-rotated-${kind}`, { graceSeconds: 0 });
    if (kind === 'agent') [K.revokedAgent, K.rotatedAgent] = [revoked, rotated];
    else [K.revokedReviewer, K.rotatedReviewer] = [revoked, rotated];
  }
  K.bAgent = (await store.create('agent', 'globex-bot', { tenant: 'globex' })).key;
  K.bReviewer = (await store.create('reviewer', 'globex-rev', { tenant: 'globex' })).key;

  // One trip of A's, run to its submission.
  const runId = await waitingRun();
  submittedRequestId = await waitFor("the run's pending gate", async () => {
    const v = await call('GET', `/v1/runs/${runId}`, K.aAgent);
    return v.body.pending_approvals?.[0]?.request_id as string | undefined;
  });
  const gate = await call('GET', `/v1/approvals/${submittedRequestId}`, K.aReviewer);
  const d = await call('POST', `/v1/approvals/${submittedRequestId}/decision`, K.aReviewer, {
    decision: 'approve',
    payload_sha256: gate.body.payload_sha256,
  });
  expect(d.status).toBe(200);
  await waitFor('the run completed', async () =>
    (await call('GET', `/v1/runs/${runId}`, K.aAgent)).body.status === 'completed' ? true : undefined,
  );
  const left = Date.parse(expiresAt) - Date.now();
  if (left >= 0) await new Promise((r) => setTimeout(r, left + 50));
}, 120_000);

afterAll(async () => {
  await api?.close();
  await worker?.stop();
  await db?.close();
});

describe('auth matrix', () => {
  it('has an entry for every route the server serves, and none for a route it does not', () => {
    const served = routesOf(api.app).map((r) => `${r.method} ${r.url}`);
    expect([...served].sort()).toEqual(Object.keys(MATRIX).sort());
  });

  const cells = Object.entries(MATRIX).flatMap(([route, spec]) =>
    Object.entries(COLUMNS).map(([column, run]) => ({ route, column, spec, run })),
  );
  it.each(cells)('$route × $column', async ({ route, spec, run }) => {
    const method = route.split(' ')[0]!;
    await run(method, spec);
  });
});
