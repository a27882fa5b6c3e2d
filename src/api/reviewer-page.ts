import { createHash } from 'node:crypto';

// The reviewer page: one self-contained document, no build step. Everything from the
// server is written with textContent (never innerHTML), because evidence is agent input.
// A refusal the page can see coming (no reason, args that are not a JSON object) is
// shown before anything is sent; every other refusal is the server's own message.
const SCRIPT = `
const $ = (id) => document.getElementById(id);
const KEY = 'gate.reviewerKey';
const POLL_MS = 5000;
let current = null; // the request in the detail view, as last fetched
let listSeq = 0; // an older list answer never overwrites a newer one
// Back from the organisation's sign-in (/auth/callback): the ID token is in the fragment. Keep it for this tab and drop it from the address bar.
if (location.hash.startsWith('#id_token=')) { sessionStorage.setItem(KEY, decodeURIComponent(location.hash.slice(10))); history.replaceState(null, '', location.pathname); }
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; }
function say(text, bad) { const m = $('msg'); m.textContent = text; m.className = bad ? 'bad' : 'ok'; }
function keyOf() { return sessionStorage.getItem(KEY); }
async function api(method, path, body) {
  const key = keyOf();
  if (!key) throw new Error('paste a reviewer key first');
  const res = await fetch(path, { method, headers: Object.assign({ authorization: 'Bearer ' + key }, body ? { 'content-type': 'application/json' } : {}), body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(res.status + ' ' + ((data.error && (data.error.code + ': ' + data.error.message)) || res.statusText));
  return data;
}
function row(a) {
  const tr = el('tr'); tr.dataset.id = a.request_id; if (current && current.request_id === a.request_id) tr.className = 'sel';
  const open = el('button', a.request_id, 'link'); open.title = 'open this request';
  const td = el('td'); td.append(open); tr.append(td);
  [a.status, a.action, a.target, a.summary, a.agent_id, a.expires_at].forEach((v) => tr.append(el('td', v)));
  tr.onclick = () => show(a.request_id);
  return tr;
}
async function refresh() {
  if (!keyOf()) return;
  const seq = ++listSeq;
  try {
    const q = new URLSearchParams({ status: $('status').value, target: $('target').value.trim(), limit: '100' });
    const { approvals } = await api('GET', '/v1/approvals?' + q);
    if (seq !== listSeq) return;
    $('rows').replaceChildren(...approvals.map(row));
    $('count').textContent = approvals.length + ' shown, updated ' + new Date().toLocaleTimeString();
  } catch (e) { if (seq === listSeq) say(e.message, true); }
}
function kv(obj) {
  const t = el('table', undefined, 'kv');
  for (const [k, v] of Object.entries(obj || {})) {
    if (v === undefined || v === null || v === '') continue;
    const tr = el('tr'); tr.append(el('th', k), el('td', typeof v === 'object' ? JSON.stringify(v) : v)); t.append(tr);
  }
  return t;
}
function render(g) {
  const p = g.payload || {};
  const d = g.decision || {};
  $('d-id').textContent = g.request_id;
  $('d-status').textContent = g.status; $('d-status').className = 'st st-' + g.status;
  $('d-sha').textContent = g.payload_sha256 || '(unknown)';
  $('d-facts').replaceChildren(kv({
    summary: p.summary || g.summary, action: p.action || g.action, target: p.target || g.target, agent: p.agent_id || g.agent_id,
    created: g.created_at, expires: g.expires_at,
    approvals: g.votes ? g.votes.length + ' of ' + g.approvals_required + (g.votes.length ? ' (' + g.votes.map((v) => v.reviewer_id).join(', ') + ')' : '') : undefined,
    decision: d.decision ? d.decision + ' by ' + d.reviewer_id + ' at ' + d.at : undefined,
    reason: d.reason || g.status_reason, note: d.note, 'modified by': g.modified_by,
  }));
  $('d-blast').replaceChildren(kv(p.blast_radius));
  const gone = '(not available: no worker answered, so only what Temporal visibility knows is shown)';
  $('d-args-h').textContent = g.modified_by ? 'args that will run (modified by ' + g.modified_by + ')' : 'args that will run';
  $('d-args').textContent = g.stale ? gone : JSON.stringify(g.final_args || p.args || {}, null, 2);
  $('d-evidence').textContent = g.stale ? gone : JSON.stringify(p, null, 2);
  const open = g.status === 'requested' && !g.stale;
  $('actions').hidden = !open;
  $('closed').textContent = open ? '' : g.stale ? 'No decision can be made until a worker answers; refresh later.' : 'This request is ' + g.status + '; it takes no more decisions.';
  for (const tr of $('rows').children) tr.classList.toggle('sel', tr.dataset.id === g.request_id);
}
async function show(id) {
  try {
    const g = await api('GET', '/v1/approvals/' + encodeURIComponent(id));
    const other = !current || current.request_id !== g.request_id;
    current = g;
    if (other) { // a fresh form: nothing typed for the last request may leak into this one
      $('note').value = ''; $('reason').value = ''; $('d-audit').textContent = ''; $('msg').textContent = '';
      $('modargs').value = JSON.stringify(g.final_args || (g.payload && g.payload.args) || {}, null, 2);
    }
    render(g);
    $('detail').hidden = false;
  } catch (e) { say(e.message, true); }
}
function busy(on) { for (const id of ['approve', 'reject', 'modify']) $(id).disabled = on; }
async function decide(decision) {
  if (!current || $('approve').disabled) return;
  const id = current.request_id;
  const body = { decision, payload_sha256: current.payload_sha256 };
  if (current.final_args_sha256) body.args_sha256 = current.final_args_sha256;
  if (self.crypto && crypto.randomUUID) body.decision_id = crypto.randomUUID();
  const note = $('note').value.trim(); if (note) body.note = note;
  if (decision === 'reject') {
    const r = $('reason').value.trim();
    if (!r) { $('reason').focus(); return say('a rejection needs a reason (it is sent back to the agent); nothing was sent', true); }
    body.reason = r;
  }
  if (decision === 'modify') {
    let args;
    try { args = JSON.parse($('modargs').value); } catch (e) { return say('modified args are not valid JSON (' + e.message + '); nothing was sent', true); }
    if (!args || typeof args !== 'object' || Array.isArray(args) || Object.keys(args).length === 0) return say('modified args must be a JSON object with at least one field; nothing was sent', true);
    body.args = args;
  }
  busy(true);
  try {
    const r = await api('POST', '/v1/approvals/' + encodeURIComponent(id) + '/decision', body);
    say(decision + ' recorded for ' + id + ': status ' + r.status + ', approvals ' + r.approvals + ' of ' + r.approvals_required, false);
  } catch (e) { say(decision + ' refused: ' + e.message, true); }
  finally { busy(false); }
  await show(id); // the server's state, whether the decision was taken or refused
  refresh();
}
async function audit() {
  if (!current) return;
  try {
    const a = await api('GET', '/v1/approvals/' + encodeURIComponent(current.request_id) + '/audit');
    $('d-audit').textContent = (a.verified ? 'chain verified' : 'CHAIN BROKEN: ' + JSON.stringify(a.problem)) + '\\n' +
      a.events.map((e) => e.timestamp + '  ' + e.event_type + '  ' + e.actor_type + ':' + e.actor_id + (e.note ? '  ' + e.note : '')).join('\\n');
  } catch (e) { say(e.message, true); }
}
function saveKey() {
  const k = $('key').value.trim(); $('key').value = '';
  if (!k) return say('paste a reviewer key first', true);
  sessionStorage.setItem(KEY, k); say('key kept for this tab only', false); refresh();
}
const onEnter = (f) => (e) => { if (e.key === 'Enter') f(); };
$('save').onclick = saveKey;
$('key').onkeydown = onEnter(saveKey);
$('forget').onclick = () => { sessionStorage.removeItem(KEY); current = null; $('rows').replaceChildren(); $('count').textContent = ''; $('detail').hidden = true; say('key forgotten', false); };
$('refresh').onclick = refresh;
fetch('/auth/oidc').then((r) => r.json()).then((c) => { $('sso').hidden = !c.enabled; }).catch(() => undefined);
$('status').onchange = refresh;
$('target').onkeydown = onEnter(refresh);
$('approve').onclick = () => decide('approve');
$('reject').onclick = () => decide('reject');
$('modify').onclick = () => decide('modify');
$('audit').onclick = audit;
// New requests show up without a click; visibility lags a second or two behind the gates.
setInterval(() => { if ($('auto').checked && !document.hidden) refresh(); }, POLL_MS);
refresh();
`;

const STYLE = `
body{font:14px system-ui,sans-serif;margin:1.5rem;color:#222;max-width:80rem}h1{font-size:1.3rem}h2{font-size:1.1rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
#rows tr{cursor:pointer}#rows tr:hover{background:#f3f6ff}#rows tr.sel{background:#e3ebff}
button.link{background:none;border:0;padding:0;margin:0;color:#1a4fb5;text-decoration:underline;cursor:pointer;font:13px monospace}
pre{background:#f6f6f6;padding:.6rem;overflow:auto;max-height:24rem}pre:empty{display:none}.kv th{width:11rem;white-space:nowrap}#count{color:#666;margin-left:.5rem}
.sha{font-family:monospace;background:#fff3c4;padding:.2rem .4rem;word-break:break-all}.bad{color:#b00020}.ok{color:#1b5e20}
.st{padding:.1rem .5rem;border-radius:.6rem;background:#eee}.st-requested{background:#fff3c4}.st-approved,.st-consumed{background:#d7f5dc}
.st-denied,.st-expired,.st-cancelled,.st-invalidated{background:#fde0e0}
#msg{min-height:1.2em;font-weight:600}#detail{border-top:2px solid #ccc;margin-top:1.5rem}
section{margin-top:1rem}textarea{width:100%;font-family:monospace}button{margin:.2rem}.row{margin:.4rem 0}
`;

export const REVIEWER_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>approval-gate reviewer</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>approval-gate: pending approvals</h1>
<div class="row"><input id="key" type="password" size="60" placeholder="paste a reviewer key (gk_reviewer_…) and press Enter" autocomplete="off" aria-label="reviewer key">
<button id="save">use key</button><button id="forget">forget key</button> <a id="sso" href="/auth/login" hidden>sign in with your organisation</a></div>
<p id="msg" role="status" aria-live="polite"></p>
<div class="row"><label>status <select id="status"><option>requested</option><option>approved</option><option>denied</option><option>expired</option>
<option>consumed</option><option>cancelled</option><option>invalidated</option><option value="">any</option></select></label>
<label>target <input id="target" size="30"></label><button id="refresh">refresh</button>
<label><input id="auto" type="checkbox" checked> auto-refresh</label> <span id="count"></span></div>
<table><thead><tr><th>request</th><th>status</th><th>action</th><th>target</th><th>summary</th><th>agent</th><th>expires</th></tr></thead><tbody id="rows"></tbody></table>
<section id="detail" hidden>
<h2 id="d-title">request <span id="d-id"></span> <span id="d-status"></span></h2>
<p>payload_sha256 (sent with every decision): <span id="d-sha" class="sha"></span></p>
<div id="d-facts"></div><h3>blast radius</h3><div id="d-blast"></div>
<h3 id="d-args-h">args that will run</h3><pre id="d-args"></pre>
<p id="closed"></p>
<div id="actions"><h3>decide</h3>
<div class="row"><label>note (for the audit trail) <input id="note" size="60"></label> <button id="approve">approve</button></div>
<div class="row"><label>reason (required to reject; sent to the agent) <input id="reason" size="60"></label> <button id="reject">reject</button></div>
<div class="row"><label>modified args (a JSON object, merged over the requested args)<textarea id="modargs" rows="8"></textarea></label>
<button id="modify">approve with these args</button></div>
</div>
<h3>full evidence payload</h3><pre id="d-evidence"></pre>
<button id="audit">show audit trail</button><pre id="d-audit"></pre>
</section>
<script>${SCRIPT}</script>
</body></html>`;

/** Only this page's own inline script and style may run; data goes nowhere but this origin. */
export const REVIEWER_PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`,
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
