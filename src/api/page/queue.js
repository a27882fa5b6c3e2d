// @ts-check
// The queue: requests sorted by expiry, soonest first, filtered, refreshed on its own.
// Each row is filled in from the request itself once (its evidence never changes), so
// the queue shows blast radius as money and whether this reviewer may decide.

/** @type {Summary[]} the list as last fetched, sorted */
let queue = [];
/** @type {Map<string, Gate>} requests read one by one: evidence, hashes as the page saw them, viewer */
const seen = new Map();
/** @type {Set<string>} requests picked for a bulk decision */
const picked = new Set();
/** @type {string | null} the request open in the detail view */
let currentId = null;
let listSeq = 0; // an older list answer never overwrites a newer one
/** @type {Set<string>} reads in flight, so a slow answer is not asked for twice */
const reading = new Set();

/** @param {Summary} a */
const expiry = (a) => (a.expires_at ? Date.parse(a.expires_at) : Infinity);

/** The viewer the page trusts most for a row: from the request read on its own, else the list's. @param {string} id */
function viewerFor(id) {
  const g = seen.get(id);
  return (g && g.viewer) || (queue.find((a) => a.request_id === id) || {}).viewer;
}

/** @param {string} id */
function mayDecide(id) {
  const v = viewerFor(id);
  return !!v && v.may_decide;
}

/** The rows the filters let through. */
function shown() {
  const q = input('search').value.trim().toLowerCase();
  const mine = input('mine').checked;
  return queue.filter(
    (a) =>
      (!q ||
        [a.summary, a.action, a.target, a.agent_id, a.request_id].some((v) => (v || '').toLowerCase().includes(q))) &&
      (!mine || mayDecide(a.request_id)),
  );
}

async function refresh() {
  if (!keyOf()) return;
  const seq = ++listSeq;
  try {
    const q = new URLSearchParams({ status: field('status').value, limit: '100' });
    const target = input('target').value.trim();
    const agent = input('agent').value.trim();
    if (target) q.set('target', target);
    if (agent) q.set('agent_id', agent);
    const { data } = await api('GET', '/v1/approvals?' + q);
    if (seq !== listSeq) return;
    /** @type {Summary[]} */
    const list = data.approvals;
    queue = list.slice().sort((a, b) => expiry(a) - expiry(b) || a.request_id.localeCompare(b.request_id));
    if (data.viewer && data.viewer.reviewer_id) signedInAs(data.viewer.reviewer_id);
    for (const id of Array.from(picked)) if (!queue.some((a) => a.request_id === id)) picked.delete(id);
    renderQueue();
    $('updated').textContent = 'updated ' + new Date(serverNow()).toLocaleTimeString();
    void readRows();
  } catch (e) {
    if (seq === listSeq) failed(e);
  }
}

/** Reads the rows the page has not read yet (or whose status moved), three at a time. */
async function readRows() {
  const todo = queue.filter((a) => {
    const g = seen.get(a.request_id);
    return !reading.has(a.request_id) && (!g || g.status !== a.status);
  });
  const next = async () => {
    for (let a = todo.shift(); a; a = todo.shift()) {
      reading.add(a.request_id);
      try {
        const { data } = await api('GET', approvalPath(a.request_id));
        seen.set(a.request_id, data);
        paintRow(a.request_id);
      } catch {
        // the row keeps what the list said; opening it shows the error
      } finally {
        reading.delete(a.request_id);
      }
    }
  };
  await Promise.all([next(), next(), next()]);
}

function renderQueue() {
  const rows = shown();
  $('rows').replaceChildren(...rows.map(row));
  $('count').textContent = `${rows.length} of ${queue.length}`;
  $('empty').hidden = rows.length > 0;
  paintBulk();
}

/** @param {string} id */
function paintRow(id) {
  const old = rowOf(id);
  const a = queue.find((x) => x.request_id === id);
  if (old && a) old.replaceWith(row(a));
  paintBulk();
}

/** @param {string} id @returns {HTMLElement | null} */
function rowOf(id) {
  return /** @type {HTMLElement | null} */ (
    Array.from($('rows').children).find((tr) => /** @type {HTMLElement} */ (tr).dataset.id === id) || null
  );
}

/** @param {Summary} a */
function row(a) {
  const g = seen.get(a.request_id);
  const v = viewerFor(a.request_id);
  const tr = el('tr', undefined, a.request_id === currentId ? 'sel' : '');
  tr.dataset.id = a.request_id;

  const pick = el('td', undefined, 'pick');
  const box = /** @type {HTMLInputElement} */ (el('input'));
  box.type = 'checkbox';
  box.checked = picked.has(a.request_id);
  box.disabled = !(v && v.may_decide);
  box.setAttribute('aria-label', 'select for a bulk decision: ' + (a.summary || a.request_id));
  box.onchange = () => {
    if (box.checked) picked.add(a.request_id);
    else picked.delete(a.request_id);
    paintBulk();
  };
  box.onclick = (e) => e.stopPropagation();
  const tap = el('label', undefined, 'tap');
  tap.append(box);
  tap.onclick = (e) => e.stopPropagation();
  pick.append(tap);

  const when = el('td', undefined, 'when');
  if (a.status === 'requested' && a.expires_at) when.append(countdown(a.expires_at));
  else when.append(el('span', a.status, 'st st-' + a.status));

  const what = el('td', undefined, 'what');
  const open = el('button', a.summary || a.request_id, 'link');
  open.onclick = (e) => {
    e.stopPropagation();
    go(a.request_id);
  };
  what.append(
    open,
    el('div', [a.action, a.target, a.agent_id && 'by ' + a.agent_id].filter(Boolean).join(' · '), 'sub'),
  );

  const impact = el('td', undefined, 'impact');
  const blast = g && g.payload ? blastRows(g.payload.blast_radius) : [];
  impact.textContent = blast.length ? blast.map((b) => `${b.label} ${b.text}`).join(', ') : '';

  const state = el('td', undefined, 'state');
  state.append(el('span', a.status, 'st st-' + a.status));
  const required = (g && g.approvals_required) || a.approvals_required;
  if (required) state.append(' ', el('span', `${g && g.votes ? g.votes.length : 0}/${required}`, 'votes'));
  if (v && !v.may_decide && a.status === 'requested') {
    const why = el('span', 'view only', 'viewonly');
    why.title = v.reason || '';
    state.append(' ', why);
  }
  tr.append(pick, when, what, impact, state);
  tr.onclick = () => go(a.request_id);
  return tr;
}

/** Moves the open request by `step` rows in the queue as shown (j/k). @param {number} step */
function move(step) {
  const rows = shown();
  if (rows.length === 0) return;
  const i = rows.findIndex((a) => a.request_id === currentId);
  const next = rows[Math.min(Math.max(i < 0 ? (step > 0 ? 0 : rows.length - 1) : i + step, 0), rows.length - 1)];
  if (next) go(next.request_id);
}

/** @param {string} id */
function markCurrent(id) {
  for (const tr of Array.from($('rows').children)) {
    const on = /** @type {HTMLElement} */ (tr).dataset.id === id;
    tr.classList.toggle('sel', on);
    if (on) tr.setAttribute('aria-current', 'true');
    else tr.removeAttribute('aria-current');
  }
}
