import { createHash } from 'node:crypto';

// The reviewer page: one self-contained document, no build step. Everything from the
// server is written with textContent (never innerHTML), because evidence is agent input.
const SCRIPT = `
const $ = (id) => document.getElementById(id);
const KEY = 'gate.reviewerKey';
let current = null;
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; }
function say(text, bad) { const m = $('msg'); m.textContent = text; m.className = bad ? 'bad' : 'ok'; }
async function api(method, path, body) {
  const key = sessionStorage.getItem(KEY);
  if (!key) throw new Error('paste a reviewer key first');
  const res = await fetch(path, { method, headers: Object.assign({ authorization: 'Bearer ' + key }, body ? { 'content-type': 'application/json' } : {}), body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(res.status + ' ' + ((data.error && (data.error.code + ': ' + data.error.message)) || res.statusText));
  return data;
}
async function refresh() {
  try {
    const q = new URLSearchParams({ status: $('status').value, target: $('target').value.trim(), limit: '100' });
    const { approvals } = await api('GET', '/v1/approvals?' + q);
    const body = $('rows'); body.replaceChildren();
    for (const a of approvals) {
      const tr = el('tr');
      [a.request_id, a.status, a.action, a.target, a.summary, a.agent_id, a.expires_at].forEach((v) => tr.append(el('td', v)));
      tr.onclick = () => show(a.request_id);
      body.append(tr);
    }
    $('count').textContent = approvals.length + ' shown';
  } catch (e) { say(e.message, true); }
}
function kv(obj) {
  const t = el('table'); for (const [k, v] of Object.entries(obj || {})) { const tr = el('tr'); tr.append(el('th', k), el('td', typeof v === 'object' ? JSON.stringify(v) : v)); t.append(tr); }
  return t;
}
async function show(id) {
  try {
    const g = await api('GET', '/v1/approvals/' + encodeURIComponent(id));
    current = g;
    $('detail').hidden = false;
    $('d-title').textContent = g.request_id + ' - ' + g.status + (g.stale ? ' (stale: no worker answered)' : '');
    $('d-sha').textContent = g.payload_sha256;
    const p = g.payload || {};
    $('d-facts').replaceChildren(kv({ action: p.action || g.action, target: p.target || g.target, agent: (p.agent_id || g.agent_id), summary: p.summary || g.summary, expires_at: g.expires_at, approvals: (g.votes ? g.votes.length : 0) + ' of ' + g.approvals_required }));
    $('d-blast').replaceChildren(kv(p.blast_radius));
    $('d-args').textContent = JSON.stringify(g.final_args || p.args || {}, null, 2);
    $('d-evidence').textContent = JSON.stringify(p, null, 2);
    $('modargs').value = JSON.stringify(g.final_args || p.args || {}, null, 2);
    $('d-audit').textContent = '';
    $('actions').hidden = g.status !== 'requested';
  } catch (e) { say(e.message, true); }
}
async function decide(decision) {
  if (!current) return;
  const body = { decision, payload_sha256: current.payload_sha256, decision_id: (self.crypto && crypto.randomUUID) ? crypto.randomUUID() : undefined };
  const note = $('note').value.trim(); if (note) body.note = note;
  if (decision === 'reject') { const r = $('reason').value.trim(); if (!r) return say('a rejection needs a reason', true); body.reason = r; }
  if (decision === 'modify') { try { body.args = JSON.parse($('modargs').value); } catch (e) { return say('args are not valid JSON: ' + e.message, true); } }
  try {
    const r = await api('POST', '/v1/approvals/' + encodeURIComponent(current.request_id) + '/decision', body);
    say(decision + ' recorded: status ' + r.status + ', approvals ' + r.approvals + ' of ' + r.approvals_required, false);
    await show(current.request_id); await refresh();
  } catch (e) { say(e.message, true); }
}
async function audit() {
  try {
    const a = await api('GET', '/v1/approvals/' + encodeURIComponent(current.request_id) + '/audit');
    $('d-audit').textContent = (a.verified ? 'chain verified' : 'CHAIN BROKEN: ' + JSON.stringify(a.problem)) + '\\n' +
      a.events.map((e) => e.timestamp + '  ' + e.event_type + '  ' + e.actor_type + ':' + e.actor_id + (e.note ? '  ' + e.note : '')).join('\\n');
  } catch (e) { say(e.message, true); }
}
$('save').onclick = () => { const k = $('key').value.trim(); if (k) sessionStorage.setItem(KEY, k); $('key').value = ''; say('key kept for this tab only', false); refresh(); };
$('forget').onclick = () => { sessionStorage.removeItem(KEY); say('key forgotten', false); };
$('refresh').onclick = refresh;
$('approve').onclick = () => decide('approve');
$('reject').onclick = () => decide('reject');
$('modify').onclick = () => decide('modify');
$('audit').onclick = audit;
if (sessionStorage.getItem(KEY)) refresh();
`;

const STYLE = `
body{font:14px system-ui,sans-serif;margin:1.5rem;color:#222}h1{font-size:1.3rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
#rows tr{cursor:pointer}#rows tr:hover{background:#f3f6ff}pre{background:#f6f6f6;padding:.6rem;overflow:auto;max-height:24rem}
.sha{font-family:monospace;background:#fff3c4;padding:.2rem .4rem}.bad{color:#b00020}.ok{color:#1b5e20}
section{margin-top:1rem}textarea{width:100%;font-family:monospace}button{margin:.2rem}
`;

export const REVIEWER_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>approval-gate reviewer</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>approval-gate: pending approvals</h1>
<div><input id="key" type="password" size="60" placeholder="paste a reviewer key (gk_reviewer_…)" autocomplete="off">
<button id="save">use key</button><button id="forget">forget key</button></div>
<p id="msg" role="status"></p>
<div><label>status <select id="status"><option>requested</option><option>approved</option><option>denied</option><option>expired</option>
<option>consumed</option><option>cancelled</option><option>invalidated</option><option value="">any</option></select></label>
<label>target <input id="target" size="30"></label><button id="refresh">refresh</button> <span id="count"></span></div>
<table><thead><tr><th>request</th><th>status</th><th>action</th><th>target</th><th>summary</th><th>agent</th><th>expires</th></tr></thead><tbody id="rows"></tbody></table>
<section id="detail" hidden>
<h2 id="d-title"></h2>
<p>payload_sha256 (sent with every decision): <span id="d-sha" class="sha"></span></p>
<div id="d-facts"></div><h3>blast radius</h3><div id="d-blast"></div>
<h3>args that will run</h3><pre id="d-args"></pre>
<h3>full evidence payload</h3><pre id="d-evidence"></pre>
<div id="actions"><h3>decide</h3>
<label>note <input id="note" size="60"></label><br><button id="approve">approve</button><br>
<label>reason <input id="reason" size="60"></label><button id="reject">reject</button><br>
<label>modified args (JSON, merged over the requested args)<textarea id="modargs" rows="8"></textarea></label><button id="modify">approve with these args</button>
</div>
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
