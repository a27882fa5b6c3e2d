// @ts-check
// Opening a request and deciding it: approve, reject (a reason is required), modify
// (field by field, the server's 422 problems shown beside the fields). A decision the
// server accepted but applies later (202) shows as "accepted, pending" until it lands.

const PENDING_POLL_MS = 1000;
const PENDING_MAX_MS = 60_000;

/** @param {string} id opens a request by its deep link, so the address bar can be shared */
function go(id) {
  const hash = '#/approvals/' + encodeURIComponent(id);
  if (location.hash === hash) void show(id);
  else location.hash = hash;
}

/**
 * Reads and shows one request. A fresh form for another request: nothing typed for the
 * last one may leak into this one.
 * @param {string} id
 */
async function show(id) {
  try {
    const { data } = await api('GET', approvalPath(id));
    /** @type {Gate} */
    const g = data;
    const other = currentId !== g.request_id;
    current = g;
    currentId = g.request_id;
    seen.set(g.request_id, g);
    if (other) {
      input('note').value = '';
      input('reason').value = '';
      fillModify(g);
      $('d-audit').replaceChildren();
      $('d-audit-verified').textContent = '';
    }
    renderDetail(g);
    renderPanel(g);
    notePending(g);
    $('detail').hidden = false;
    markCurrent(g.request_id);
    paintRow(g.request_id);
    if (other && matchMedia('(max-width: 959px)').matches) $('detail').scrollIntoView();
    void loadAudit();
  } catch (e) {
    failed(e);
  }
}

/** Buttons for one who may decide; for anyone else, why not. @param {Gate} g */
function renderPanel(g) {
  const v = g.viewer;
  const open = g.status === 'requested' && !g.stale;
  const may = open && !!v && v.may_decide;
  $('actions').hidden = !may;
  const why = $('d-cannot');
  why.hidden = may;
  why.textContent = may
    ? ''
    : (v && v.reason) ||
      (g.stale
        ? 'No worker answered for this request; try again shortly.'
        : `This request is ${g.status}; it takes no more decisions.`);
}

/** @param {boolean} on */
function busy(on) {
  for (const id of ['approve', 'reject', 'modify']) button(id).disabled = on;
}

/**
 * The body of a decision on `g`, bound to what the page showed: its payload_sha256 and,
 * when the page read them, the args it showed (args_sha256).
 * @param {Gate | Summary} g
 * @param {'approve' | 'reject' | 'modify'} decision
 */
function decisionBody(g, decision) {
  /** @type {Record<string, unknown>} */
  const body = { decision, payload_sha256: g.payload_sha256, decision_id: decisionId() };
  if ('final_args_sha256' in g && g.final_args_sha256) body.args_sha256 = g.final_args_sha256;
  return body;
}

/** @param {'approve' | 'reject' | 'modify'} decision */
async function decide(decision) {
  const g = current;
  if (!g || $('actions').hidden || button('approve').disabled) return;
  const body = decisionBody(g, decision);
  const note = input('note').value.trim();
  if (note) body.note = note;
  if (decision === 'reject') {
    const r = input('reason').value.trim();
    if (!r) {
      input('reason').focus();
      return say(
        'a rejection needs a reason (it is sent back to the agent); type one, then press Enter. Nothing was sent.',
        'bad',
      );
    }
    body.reason = r;
  }
  if (decision === 'modify') {
    const patch = readModify(g);
    if (!patch) return;
    body.args = patch;
  }
  busy(true);
  try {
    const { status, data: r } = await api('POST', approvalPath(g.request_id) + '/decision', body);
    if (status === 202) {
      say(`${decision} accepted, pending for ${g.request_id}: the gate applies it shortly`, 'info');
      void awaitPending(g.request_id);
    } else
      say(
        `${decision} recorded for ${g.request_id}: status ${r.status}, approvals ${r.approvals} of ${r.approvals_required}`,
        'ok',
      );
  } catch (e) {
    say(`${decision} refused: ${messageOf(e)}`, 'bad');
    if (decision === 'modify' && e instanceof ApiError && e.status === 422) showProblems(fieldProblems(e.details));
  } finally {
    busy(false);
  }
  await show(g.request_id); // the server's state, whether the decision was taken or refused
  void refresh();
}

/** @type {{ id: string, votes: number } | null} a decision the server accepted (202) that the page has not yet seen applied */
let pending = null;

/**
 * After a 202: reads the request each second for a minute (and then with the queue, every
 * few seconds) until the decision shows: its status moves or its votes change.
 * @param {string} id
 */
async function awaitPending(id) {
  const before = seen.get(id);
  pending = { id, votes: before && before.votes ? before.votes.length : 0 };
  $('pending').hidden = false;
  const until = Date.now() + PENDING_MAX_MS;
  while (pending && pending.id === id && Date.now() < until) {
    await new Promise((r) => setTimeout(r, PENDING_POLL_MS));
    if (currentId === id) await show(id);
  }
}

/** Called with each read of a request: says when the pending decision on it has landed. @param {Gate} g */
function notePending(g) {
  if (!pending || pending.id !== g.request_id) {
    $('pending').hidden = true;
    return;
  }
  if (g.status === 'requested' && (g.votes || []).length === pending.votes) {
    $('pending').hidden = false;
    return;
  }
  pending = null;
  $('pending').hidden = true;
  say(`the decision on ${g.request_id} was applied: status ${g.status}`, 'ok');
  void refresh();
}

/** One editable row per top-level field of the args that will run. @param {Gate} g */
function fillModify(g) {
  const args = g.final_args || (g.payload && g.payload.args) || {};
  $('mod-fields').replaceChildren(...Object.entries(args).map(([k, v], i) => modifyRow(k, v, i)));
  input('new-name').value = '';
  input('new-value').value = '';
  $('mod-other').textContent = '';
}

/**
 * @param {string} name
 * @param {unknown} value
 * @param {number} i
 */
function modifyRow(name, value, i) {
  const tr = el('tr');
  tr.dataset.field = name;
  const th = el('th');
  th.setAttribute('scope', 'row');
  const lab = el('label', name);
  lab.setAttribute('for', 'mf-' + i);
  th.append(lab);
  const td = el('td');
  const box = /** @type {HTMLInputElement} */ (el('input'));
  box.id = 'mf-' + i;
  box.value = editText(value);
  box.setAttribute('aria-describedby', 'mp-' + i);
  const problem = el('span', '', 'problem');
  problem.id = 'mp-' + i;
  problem.setAttribute('role', 'alert');
  td.append(box, problem);
  tr.append(th, td);
  return tr;
}

/**
 * The fields the reviewer changed (and a new one), read as their types; problems shown
 * beside the fields and nothing sent when one does not read.
 * @param {Gate} g
 * @returns {Record<string, unknown> | null}
 */
function readModify(g) {
  const args = g.final_args || (g.payload && g.payload.args) || {};
  /** @type {Record<string, unknown>} */
  const patch = {};
  /** @type {Map<string, string[]>} */
  const bad = new Map();
  for (const tr of Array.from($('mod-fields').children)) {
    const name = /** @type {HTMLElement} */ (tr).dataset.field || '';
    const box = /** @type {HTMLInputElement} */ (tr.querySelector('input'));
    const r = parseField(box.value, args[name]);
    if (!r.ok) bad.set(name, [r.problem]);
    else if (JSON.stringify(r.value) !== JSON.stringify(args[name])) patch[name] = r.value;
  }
  const newName = input('new-name').value.trim();
  if (newName) {
    const r = parseField(input('new-value').value, undefined);
    if (r.ok) patch[newName] = r.value;
  }
  showProblems({ byField: bad, other: [] });
  if (bad.size > 0) {
    say('some fields do not read (see beside them); nothing was sent', 'bad');
    return null;
  }
  if (Object.keys(patch).length === 0) {
    say('change at least one field to modify; nothing was sent', 'bad');
    return null;
  }
  return patch;
}

/** @param {{ byField: Map<string, string[]>, other: string[] }} problems */
function showProblems(problems) {
  const rest = [...problems.other];
  const newName = input('new-name').value.trim();
  const named = new Set();
  for (const tr of Array.from($('mod-fields').children)) {
    const name = /** @type {HTMLElement} */ (tr).dataset.field || '';
    const msgs = problems.byField.get(name);
    const box = /** @type {HTMLInputElement} */ (tr.querySelector('input'));
    /** @type {HTMLElement} */ (tr.querySelector('.problem')).textContent = msgs ? msgs.join('; ') : '';
    if (msgs) box.setAttribute('aria-invalid', 'true');
    else box.removeAttribute('aria-invalid');
    named.add(name);
  }
  const forNew = newName ? problems.byField.get(newName) : undefined;
  $('new-problem').textContent = forNew ? forNew.join('; ') : '';
  for (const [name, msgs] of problems.byField)
    if (!named.has(name) && name !== newName) rest.push(`${name}: ${msgs.join('; ')}`);
  $('mod-other').textContent = rest.join('; ');
}
