// @ts-check
// The reviewer page's script: plain browser JavaScript, type-checked (tsconfig.json beside it)
// and linted like the rest; the server inlines it and puts its SHA-256 in the CSP at start-up.
// Everything from the server is written with textContent (never innerHTML), because evidence
// is agent input. A refusal the page can see coming (no reason, args that are not a JSON
// object) is shown before anything is sent; every other refusal is the server's own message.

/**
 * @typedef {{ request_id: string, status: string, action?: string, target?: string, summary?: string,
 *   agent_id?: string, expires_at?: string }} Summary
 * @typedef {{ reviewer_id: string }} Vote
 * @typedef {Summary & { payload_sha256?: string, final_args_sha256?: string, final_args?: object,
 *   payload?: Record<string, any>, decision?: Record<string, any>, votes?: Vote[], approvals_required?: number,
 *   created_at?: string, status_reason?: string, modified_by?: string, stale?: boolean }} Gate
 * @typedef {{ timestamp: string, event_type: string, actor_type: string, actor_id: string, note?: string }} AuditEvent
 */

const KEY = 'gate.reviewerKey';
const POLL_MS = 5000;
/** @type {Gate | null} the request in the detail view, as last fetched */
let current = null;
let listSeq = 0; // an older list answer never overwrites a newer one
// Back from the organisation's sign-in (/auth/callback): the ID token is in the fragment. Keep it for this tab and drop it from the address bar.
if (location.hash.startsWith('#id_token=')) {
  sessionStorage.setItem(KEY, decodeURIComponent(location.hash.slice(10)));
  history.replaceState(null, '', location.pathname);
}

/** @param {string} id */
function $(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no #${id}`);
  return e;
}
/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ ($(id));
/** @param {string} id */
const field = (id) => /** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */ ($(id));
/** @param {string} id */
const button = (id) => /** @type {HTMLButtonElement} */ ($(id));

/**
 * @param {string} tag
 * @param {unknown} [text]
 * @param {string} [cls]
 */
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
/**
 * @param {string} text
 * @param {boolean} bad
 */
function say(text, bad) {
  const m = $('msg');
  m.textContent = text;
  m.className = bad ? 'bad' : 'ok';
}
function keyOf() {
  return sessionStorage.getItem(KEY);
}
/** @param {unknown} e */
const messageOf = (e) => (e instanceof Error ? e.message : String(e));

/**
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<any>}
 */
async function api(method, path, body) {
  const key = keyOf();
  if (!key) throw new Error('paste a reviewer key first');
  /** @type {Record<string, string>} */
  const headers = { authorization: 'Bearer ' + key };
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok)
    throw new Error(res.status + ' ' + ((data.error && data.error.code + ': ' + data.error.message) || res.statusText));
  return data;
}

/** @param {Summary} a */
function row(a) {
  const tr = el('tr');
  tr.dataset.id = a.request_id;
  if (current && current.request_id === a.request_id) tr.className = 'sel';
  const open = el('button', a.request_id, 'link');
  open.title = 'open this request';
  const td = el('td');
  td.append(open);
  tr.append(td);
  [a.status, a.action, a.target, a.summary, a.agent_id, a.expires_at].forEach((v) => tr.append(el('td', v)));
  tr.onclick = () => void show(a.request_id);
  return tr;
}

async function refresh() {
  if (!keyOf()) return;
  const seq = ++listSeq;
  try {
    const q = new URLSearchParams({
      status: field('status').value,
      target: input('target').value.trim(),
      limit: '100',
    });
    /** @type {{ approvals: Summary[] }} */
    const { approvals } = await api('GET', '/v1/approvals?' + q);
    if (seq !== listSeq) return;
    $('rows').replaceChildren(...approvals.map(row));
    $('count').textContent = approvals.length + ' shown, updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    if (seq === listSeq) say(messageOf(e), true);
  }
}

/** @param {Record<string, unknown> | undefined} obj */
function kv(obj) {
  const t = el('table', undefined, 'kv');
  for (const [k, v] of Object.entries(obj || {})) {
    if (v === undefined || v === null || v === '') continue;
    const tr = el('tr');
    tr.append(el('th', k), el('td', typeof v === 'object' ? JSON.stringify(v) : v));
    t.append(tr);
  }
  return t;
}

/** @param {Gate} g */
function render(g) {
  const p = g.payload || {};
  const d = g.decision || {};
  const votes = g.votes;
  $('d-id').textContent = g.request_id;
  $('d-status').textContent = g.status;
  $('d-status').className = 'st st-' + g.status;
  $('d-sha').textContent = g.payload_sha256 || '(unknown)';
  $('d-facts').replaceChildren(
    kv({
      summary: p.summary || g.summary,
      action: p.action || g.action,
      target: p.target || g.target,
      agent: p.agent_id || g.agent_id,
      created: g.created_at,
      expires: g.expires_at,
      approvals: votes
        ? votes.length +
          ' of ' +
          g.approvals_required +
          (votes.length ? ' (' + votes.map((v) => v.reviewer_id).join(', ') + ')' : '')
        : undefined,
      decision: d.decision ? d.decision + ' by ' + d.reviewer_id + ' at ' + d.at : undefined,
      reason: d.reason || g.status_reason,
      note: d.note,
      'modified by': g.modified_by,
    }),
  );
  $('d-blast').replaceChildren(kv(p.blast_radius));
  const gone = '(not available: no worker answered, so only what Temporal visibility knows is shown)';
  $('d-args-h').textContent = g.modified_by
    ? 'args that will run (modified by ' + g.modified_by + ')'
    : 'args that will run';
  $('d-args').textContent = g.stale ? gone : JSON.stringify(g.final_args || p.args || {}, null, 2);
  $('d-evidence').textContent = g.stale ? gone : JSON.stringify(p, null, 2);
  const open = g.status === 'requested' && !g.stale;
  $('actions').hidden = !open;
  $('closed').textContent = open
    ? ''
    : g.stale
      ? 'No decision can be made until a worker answers; refresh later.'
      : 'This request is ' + g.status + '; it takes no more decisions.';
  for (const tr of Array.from($('rows').children))
    tr.classList.toggle('sel', /** @type {HTMLElement} */ (tr).dataset.id === g.request_id);
}

/** @param {string} id */
async function show(id) {
  try {
    /** @type {Gate} */
    const g = await api('GET', '/v1/approvals/' + encodeURIComponent(id));
    const other = !current || current.request_id !== g.request_id;
    current = g;
    if (other) {
      // A fresh form: nothing typed for the last request may leak into this one.
      input('note').value = '';
      input('reason').value = '';
      $('d-audit').textContent = '';
      $('msg').textContent = '';
      field('modargs').value = JSON.stringify(g.final_args || (g.payload && g.payload.args) || {}, null, 2);
    }
    render(g);
    $('detail').hidden = false;
  } catch (e) {
    say(messageOf(e), true);
  }
}

/** @param {boolean} on */
function busy(on) {
  for (const id of ['approve', 'reject', 'modify']) button(id).disabled = on;
}

/** @param {'approve' | 'reject' | 'modify'} decision */
async function decide(decision) {
  if (!current || button('approve').disabled) return;
  const id = current.request_id;
  /** @type {Record<string, unknown>} */
  const body = { decision, payload_sha256: current.payload_sha256 };
  if (current.final_args_sha256) body.args_sha256 = current.final_args_sha256;
  if (self.crypto && crypto.randomUUID) body.decision_id = crypto.randomUUID();
  const note = input('note').value.trim();
  if (note) body.note = note;
  if (decision === 'reject') {
    const r = input('reason').value.trim();
    if (!r) {
      input('reason').focus();
      return say('a rejection needs a reason (it is sent back to the agent); nothing was sent', true);
    }
    body.reason = r;
  }
  if (decision === 'modify') {
    let args;
    try {
      args = JSON.parse(field('modargs').value);
    } catch (e) {
      return say('modified args are not valid JSON (' + messageOf(e) + '); nothing was sent', true);
    }
    if (!args || typeof args !== 'object' || Array.isArray(args) || Object.keys(args).length === 0)
      return say('modified args must be a JSON object with at least one field; nothing was sent', true);
    body.args = args;
  }
  busy(true);
  try {
    const r = await api('POST', '/v1/approvals/' + encodeURIComponent(id) + '/decision', body);
    say(
      decision +
        ' recorded for ' +
        id +
        ': status ' +
        r.status +
        ', approvals ' +
        r.approvals +
        ' of ' +
        r.approvals_required,
      false,
    );
  } catch (e) {
    say(decision + ' refused: ' + messageOf(e), true);
  } finally {
    busy(false);
  }
  await show(id); // the server's state, whether the decision was taken or refused
  void refresh();
}

async function audit() {
  if (!current) return;
  try {
    /** @type {{ verified: boolean, problem?: unknown, events: AuditEvent[] }} */
    const a = await api('GET', '/v1/approvals/' + encodeURIComponent(current.request_id) + '/audit');
    $('d-audit').textContent =
      (a.verified ? 'chain verified' : 'CHAIN BROKEN: ' + JSON.stringify(a.problem)) +
      '\n' +
      a.events
        .map(
          (e) =>
            e.timestamp + '  ' + e.event_type + '  ' + e.actor_type + ':' + e.actor_id + (e.note ? '  ' + e.note : ''),
        )
        .join('\n');
  } catch (e) {
    say(messageOf(e), true);
  }
}

function saveKey() {
  const k = input('key').value.trim();
  input('key').value = '';
  if (!k) return say('paste a reviewer key first', true);
  sessionStorage.setItem(KEY, k);
  say('key kept for this tab only', false);
  void refresh();
}

/** @param {() => unknown} f */
const onEnter = (f) => /** @param {KeyboardEvent} e */ (e) => {
  if (e.key === 'Enter') void f();
};
button('save').onclick = saveKey;
input('key').onkeydown = onEnter(saveKey);
button('forget').onclick = () => {
  sessionStorage.removeItem(KEY);
  current = null;
  $('rows').replaceChildren();
  $('count').textContent = '';
  $('detail').hidden = true;
  say('key forgotten', false);
};
button('refresh').onclick = () => void refresh();
fetch('/auth/oidc')
  .then((r) => r.json())
  .then((/** @type {{ enabled?: boolean }} */ c) => {
    $('sso').hidden = !c.enabled;
  })
  .catch(() => undefined);
field('status').onchange = () => void refresh();
input('target').onkeydown = onEnter(refresh);
button('approve').onclick = () => void decide('approve');
button('reject').onclick = () => void decide('reject');
button('modify').onclick = () => void decide('modify');
button('audit').onclick = () => void audit();
// New requests show up without a click; visibility lags a second or two behind the gates.
setInterval(() => {
  if (input('auto').checked && !document.hidden) void refresh();
}, POLL_MS);
void refresh();
