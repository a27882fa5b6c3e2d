// @ts-check
// Bulk decisions: each picked request is sent on its own, with the hashes the page holds
// for it, and answered on its own; one refusal (a stale hash, a vote already cast) does
// not stop or undo the others.

function paintBulk() {
  const n = Array.from(picked).filter((id) => queue.some((a) => a.request_id === id)).length;
  button('bulk-approve').textContent = `Approve selected (${n})`;
  button('bulk-reject').textContent = `Reject selected (${n})`;
  button('bulk-approve').disabled = n === 0;
  button('bulk-reject').disabled = n === 0;
  const all = shown().filter((a) => mayDecide(a.request_id));
  const box = input('select-all');
  box.checked = all.length > 0 && all.every((a) => picked.has(a.request_id));
  box.indeterminate = !box.checked && all.some((a) => picked.has(a.request_id));
}

/** Picks (or unpicks) every shown request this reviewer may decide. */
function pickAll() {
  const on = input('select-all').checked;
  for (const a of shown()) {
    if (on && mayDecide(a.request_id)) picked.add(a.request_id);
    else picked.delete(a.request_id);
  }
  renderQueue();
}

/** @param {'approve' | 'reject'} decision */
async function bulk(decision) {
  const ids = queue.map((a) => a.request_id).filter((id) => picked.has(id));
  if (ids.length === 0) return say('pick requests first (the boxes in the queue, or x on the open one)', 'bad');
  const reason = input('bulk-reason').value.trim();
  if (decision === 'reject' && !reason) {
    input('bulk-reason').focus();
    return say('a bulk rejection needs a reason (it is sent to each agent); nothing was sent', 'bad');
  }
  const results = $('bulk-results');
  results.replaceChildren();
  button('bulk-approve').disabled = true;
  button('bulk-reject').disabled = true;
  let ok = 0;
  await Promise.all(
    ids.map(async (id) => {
      // What the page showed for this request: its own payload_sha256, and its args' hash if read.
      const g = seen.get(id) || queue.find((a) => a.request_id === id);
      const li = el('li', `${id}: sending…`);
      li.dataset.id = id;
      results.append(li);
      if (!g) return;
      const body = decisionBody(g, decision);
      if (reason && decision === 'reject') body.reason = reason;
      try {
        const { status, data } = await api('POST', approvalPath(id) + '/decision', body);
        li.textContent =
          status === 202
            ? `${id} (${g.summary || ''}): ${decision} accepted, pending`
            : `${id} (${g.summary || ''}): ${decision} recorded, status ${data.status}`;
        li.className = 'ok';
        picked.delete(id);
        ok++;
      } catch (e) {
        li.textContent = `${id} (${g.summary || ''}): refused: ${messageOf(e)}`;
        li.className = 'bad';
      }
    }),
  );
  say(
    `bulk ${decision}: ${ok} of ${ids.length} taken; each answer is listed below the buttons`,
    ok === ids.length ? 'ok' : 'bad',
  );
  // Read each again: a refused one now shows its current args and hashes.
  await Promise.all(
    ids.map(async (id) => {
      try {
        seen.set(id, (await api('GET', approvalPath(id))).data);
      } catch {
        seen.delete(id);
      }
    }),
  );
  if (currentId && ids.includes(currentId)) await show(currentId);
  await refresh();
}
