// @ts-check
// The reviewer page's calls to the API, its credentials and the server's clock.

/**
 * @typedef {{ reviewer_id: string, may_decide: boolean, reason?: string, code?: string, partial?: true }} Viewer
 * @typedef {{ request_id: string, status: string, action?: string, target?: string, summary?: string,
 *   agent_id?: string, expires_at?: string, payload_sha256?: string, approvals_required?: number | null,
 *   closed?: boolean, viewer?: Viewer }} Summary
 * @typedef {{ reviewer_id: string, decision?: string, note?: string, at?: string }} Vote
 * @typedef {Summary & { final_args_sha256?: string, final_args?: Record<string, unknown>,
 *   payload?: Record<string, any>, decision?: Record<string, any>, votes?: Vote[], created_at?: string,
 *   status_reason?: string, modified_by?: string, stale?: boolean, final_snapshot?: Record<string, unknown>,
 *   escalation?: unknown, escalation_level?: unknown, roles_added?: unknown[] }} Gate
 * @typedef {{ timestamp: string, event_type: string, actor_type: string, actor_id: string, note?: string }} AuditEvent
 */

const KEY = 'gate.reviewerKey';
const RETURN_TO = 'gate.returnTo';

/** The API's refusal: its status, code, message and details (field problems of a 422). */
class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {unknown} details
   */
  constructor(status, code, message, details) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Server time minus browser time, in ms: time left is counted on the server's clock, not the browser's. */
let clockOffset = 0;
/** Round trip of the answer the offset came from; a faster answer gives a better offset. */
let clockRtt = Infinity;
let clockAt = 0;

/** The server's clock now, as the browser best knows it. */
function serverNow() {
  return Date.now() + clockOffset;
}

/**
 * Learns the server's clock from an answer: its `server_time` field (ms), else its `Date`
 * header (seconds). The server stamped it somewhere between sending and receiving: take
 * the middle, and keep the estimate from the quickest recent round trip.
 * @param {number} sent
 * @param {number} received
 * @param {unknown} serverTime
 * @param {string | null} dateHeader
 */
function learnClock(sent, received, serverTime, dateHeader) {
  const stamped =
    typeof serverTime === 'string' ? Date.parse(serverTime) : dateHeader ? Date.parse(dateHeader) + 500 : NaN;
  if (!Number.isFinite(stamped)) return;
  const rtt = received - sent + (typeof serverTime === 'string' ? 0 : 1000);
  if (rtt <= clockRtt || received - clockAt > 60_000) {
    clockOffset = stamped - (sent + received) / 2;
    clockRtt = rtt;
    clockAt = received;
  }
}

function keyOf() {
  return sessionStorage.getItem(KEY);
}

/**
 * One API call with the reviewer's credentials. Resolves with the status and body of a
 * 2xx (a 202 is a decision accepted and applied later); throws ApiError otherwise.
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<{ status: number, data: any }>}
 */
async function api(method, path, body) {
  const key = keyOf();
  if (!key) throw new ApiError(401, 'unauthenticated', 'sign in first', undefined);
  /** @type {Record<string, string>} */
  const headers = { authorization: 'Bearer ' + key };
  if (body) headers['content-type'] = 'application/json';
  const sent = Date.now();
  const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  learnClock(sent, Date.now(), data && data.server_time, res.headers.get('date'));
  if (!res.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(res.status, e.code || 'error', e.message || res.statusText, e.details);
  }
  return { status: res.status, data };
}

/** @param {unknown} e */
const messageOf = (e) => (e instanceof Error ? e.message : String(e));

/** @param {string} id */
const approvalPath = (id) => '/v1/approvals/' + encodeURIComponent(id);

/** A fresh decision id, so a retried click is applied once. */
function decisionId() {
  return self.crypto && crypto.randomUUID
    ? crypto.randomUUID()
    : String(Date.now()) + Math.random().toString(16).slice(2);
}
