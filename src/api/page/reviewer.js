// @ts-check
// The reviewer page's start: sign-in (a reviewer API key, or the organisation's sign-in
// when OIDC is set), deep links (#/approvals/<id>), keys, and the timers that keep the
// queue and the countdowns current. The server inlines this file after format.js, api.js,
// dom.js, queue.js, detail.js, decide.js and bulk.js, and names the script's SHA-256 in its CSP.

const POLL_MS = 5000;

// Back from the organisation's sign-in (/auth/callback): the ID token is in the fragment.
// Keep it for this tab, drop it from the address bar, and go back to the link that was open.
if (location.hash.startsWith('#id_token=')) {
  sessionStorage.setItem(KEY, decodeURIComponent(location.hash.slice(10)));
  const back = sessionStorage.getItem(RETURN_TO) || '';
  sessionStorage.removeItem(RETURN_TO);
  history.replaceState(null, '', location.pathname + (back.startsWith('#/approvals/') ? back : ''));
}

/** The request a deep link names, or null. */
function linked() {
  const m = /^#\/approvals\/([^/?#]+)$/.exec(location.hash);
  if (!m || !m[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/** @param {string} who */
function signedInAs(who) {
  $('who-name').textContent = who;
}

/** Shows the sign-in or the queue, whichever fits. */
function paintSignedIn() {
  const on = !!keyOf();
  $('signin').hidden = on;
  $('app').hidden = !on;
  $('who').hidden = !on;
}

/** @param {unknown} e */
function failed(e) {
  if (e instanceof ApiError && e.status === 401) {
    sessionStorage.removeItem(KEY);
    paintSignedIn();
    say('sign-in refused: ' + e.message + '. Paste a valid reviewer key or sign in again.', 'bad');
    return;
  }
  say(messageOf(e), 'bad');
}

function route() {
  const id = linked();
  if (!id) return;
  if (!keyOf()) return say(`sign in to open request ${id}`, 'info');
  void show(id);
}

function saveKey() {
  const k = input('key').value.trim();
  input('key').value = '';
  if (!k) return say('paste a reviewer key first', 'bad');
  sessionStorage.setItem(KEY, k);
  paintSignedIn();
  say('signed in with a reviewer key, kept for this tab only', 'ok');
  void refresh();
  route();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  current = null;
  currentId = null;
  queue = [];
  seen.clear();
  picked.clear();
  $('rows').replaceChildren();
  $('detail').hidden = true;
  $('who-name').textContent = '';
  paintSignedIn();
  say('signed out: the key or token is gone from this tab', 'ok');
}

/** True when a key press belongs to a text field, not to the page's shortcuts. @param {EventTarget | null} t */
function typing(t) {
  const e = /** @type {HTMLElement | null} */ (t);
  return !!e && (e.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName));
}

/** @param {KeyboardEvent} e */
function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (typing(e.target)) {
    // Escape leaves a text field, so the keys below work again without the mouse.
    if (e.key === 'Escape') /** @type {HTMLElement} */ (e.target).blur();
    return;
  }
  const help = /** @type {HTMLDialogElement} */ ($('help'));
  if (help.open) return;
  if (!keyOf() && e.key !== '?') return;
  const canDecide = current && !$('actions').hidden;
  switch (e.key) {
    case 'j':
      move(1);
      break;
    case 'k':
      move(-1);
      break;
    case 'a':
      if (canDecide) void decide('approve');
      else say('nothing open that you may approve', 'bad');
      break;
    case 'r':
      if (!canDecide) return say('nothing open that you may reject', 'bad');
      if (input('reason').value.trim()) void decide('reject');
      else {
        input('reason').focus();
        say('type the reason for the rejection, then press Enter', 'info');
      }
      break;
    case 'x':
      if (currentId && mayDecide(currentId)) {
        if (picked.has(currentId)) picked.delete(currentId);
        else picked.add(currentId);
        renderQueue();
      }
      break;
    case '?':
      help.showModal();
      break;
    default:
      return;
  }
  e.preventDefault();
}

/** @param {() => unknown} f */
const onEnter = (f) => /** @param {KeyboardEvent} e */ (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    void f();
  }
};

button('save').onclick = saveKey;
input('key').onkeydown = onEnter(saveKey);
button('signout').onclick = signOut;
$('sso').onclick = () => sessionStorage.setItem(RETURN_TO, location.hash);
button('refresh').onclick = () => void refresh();
field('status').onchange = () => void refresh();
input('target').onkeydown = onEnter(refresh);
input('agent').onkeydown = onEnter(refresh);
input('search').oninput = () => renderQueue();
input('mine').onchange = () => renderQueue();
input('select-all').onchange = pickAll;
button('bulk-approve').onclick = () => void bulk('approve');
button('bulk-reject').onclick = () => void bulk('reject');
button('approve').onclick = () => void decide('approve');
button('reject').onclick = () => void decide('reject');
input('reason').onkeydown = onEnter(() => decide('reject'));
button('modify').onclick = () => void decide('modify');
button('help-btn').onclick = () => /** @type {HTMLDialogElement} */ ($('help')).showModal();
button('help-close').onclick = () => /** @type {HTMLDialogElement} */ ($('help')).close();
button('back').onclick = () => {
  $('queue-pane').scrollIntoView();
  const row = currentId && rowOf(currentId);
  if (row) /** @type {HTMLElement | null} */ (row.querySelector('button.link'))?.focus();
};
document.addEventListener('keydown', onKey);
window.addEventListener('hashchange', route);
fetch('/auth/oidc')
  .then((r) => r.json())
  .then((/** @type {{ enabled?: boolean }} */ c) => {
    $('sso-box').hidden = !c.enabled;
  })
  .catch(() => undefined);

// The queue updates on its own (visibility lags a second or two behind the gates), and so
// does the open request; countdowns repaint each second from the server's clock.
setInterval(() => {
  if (!input('auto').checked || document.hidden || !keyOf()) return;
  void refresh();
  if (currentId) void show(currentId);
}, POLL_MS);
setInterval(tick, 1000);
// On a phone the filters start folded, so the queue is on the first screen.
if (matchMedia('(max-width: 599px)').matches) /** @type {HTMLDetailsElement} */ ($('filters-box')).open = false;
paintSignedIn();
void refresh();
route();
