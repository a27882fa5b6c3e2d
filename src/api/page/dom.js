// @ts-check
// DOM helpers of the reviewer page. Everything from the server is written with
// textContent (never innerHTML), because evidence is agent input: markup in any field
// stays text.

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
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

/**
 * A table of rows under a header row; each cell is text or an element.
 * @param {string[]} head
 * @param {(string | Node)[][]} rows
 * @param {string} [cls]
 */
function table(head, rows, cls) {
  const t = el('table', undefined, cls);
  const hr = el('tr');
  for (const h of head) {
    const th = el('th', h);
    th.setAttribute('scope', 'col');
    hr.append(th);
  }
  const thead = el('thead');
  thead.append(hr);
  const tbody = el('tbody');
  for (const r of rows) {
    const tr = el('tr');
    r.forEach((c, i) => {
      const td = el('td');
      td.dataset.label = head[i] || '';
      td.append(c);
      tr.append(td);
    });
    tbody.append(tr);
  }
  t.append(thead, tbody);
  return t;
}

/**
 * Key/value rows; empty values are left out. Objects are shown as JSON text.
 * @param {Record<string, unknown> | undefined} obj
 */
function kv(obj) {
  const t = el('table', undefined, 'kv');
  const body = el('tbody');
  for (const [k, v] of Object.entries(obj || {})) {
    if (v === undefined || v === null || v === '') continue;
    const tr = el('tr');
    const th = el('th', k);
    th.setAttribute('scope', 'row');
    const td = el('td');
    td.append(v instanceof Node ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
    tr.append(th, td);
    body.append(tr);
  }
  t.append(body);
  return t;
}

/**
 * @param {string} text
 * @param {'bad' | 'ok' | 'info'} kind
 */
function say(text, kind) {
  const m = $('msg');
  m.textContent = text;
  m.className = kind;
}

/** @param {string} expiresAt an element that counts down to `expiresAt` on the server's clock (see tick) */
function countdown(expiresAt) {
  const s = el('span', '', 'left');
  s.dataset.expires = expiresAt;
  s.title = 'expires ' + new Date(expiresAt).toLocaleString();
  paintLeft(s);
  return s;
}

/** @param {HTMLElement} s */
function paintLeft(s) {
  const at = Date.parse(s.dataset.expires || '');
  if (!Number.isFinite(at)) return;
  const t = timeLeft(at - serverNow());
  if (s.textContent !== t.text) s.textContent = t.text;
  s.className = 'left ' + t.urgency;
}

/** Repaints every countdown on the page; runs each second. */
function tick() {
  for (const s of Array.from(document.querySelectorAll('.left[data-expires]')))
    paintLeft(/** @type {HTMLElement} */ (s));
}
