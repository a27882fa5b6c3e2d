// @ts-check
// One request in full: what it does, its impact, the args (and what a modification
// changed), the snapshot, the policy that applied, the escalation, the votes, the audit trail.

/** @type {Gate | null} the request in the detail view, as last read */
let current = null;

/** @param {Gate} g */
function renderDetail(g) {
  const p = g.payload || {};
  $('d-summary').textContent = p.summary || g.summary || g.request_id;
  $('d-what').textContent =
    `${p.action || g.action || ''} on ${p.target || g.target || ''} by ${p.agent_id || g.agent_id || ''}`;
  $('d-status').textContent = g.status;
  $('d-status').className = 'st st-' + g.status;
  $('d-left').replaceChildren(g.status === 'requested' && g.expires_at ? countdown(g.expires_at) : '');
  $('d-expires').textContent = g.expires_at ? new Date(g.expires_at).toLocaleString() : '';
  $('d-id').textContent = g.request_id;
  $('d-sha').textContent = g.payload_sha256 || '(unknown)';
  $('d-facts').replaceChildren(
    kv({
      action: p.action || g.action,
      target: p.target || g.target,
      agent: p.agent_id || g.agent_id,
      created: g.created_at && new Date(g.created_at).toLocaleString(),
      expires: g.expires_at && new Date(g.expires_at).toLocaleString() + ' (' + g.expires_at + ')',
      correlation: p.correlation_id,
      trigger: p.trigger_event_id,
      preconditions: p.preconditions,
    }),
  );
  renderBlast(p.blast_radius);
  renderArgs(g);
  renderSnapshot(g);
  renderPolicy(g);
  renderEscalation(g);
  renderVotes(g);
  $('d-evidence').textContent = g.stale
    ? '(not available: no worker answered, so only what Temporal visibility knows is shown)'
    : JSON.stringify(p, null, 2);
}

/** @param {Record<string, unknown> | undefined} blast */
function renderBlast(blast) {
  const rows = blastRows(blast);
  $('d-blast').replaceChildren(
    rows.length
      ? table(
          ['impact', 'amount'],
          rows.map((r) => [r.label, el('span', r.text, r.kind)]),
          'blast',
        )
      : el('p', 'The request names no blast radius.', 'muted'),
  );
}

/** @param {Gate} g */
function renderArgs(g) {
  const p = g.payload || {};
  const requested = p.args || {};
  const runs = g.final_args || requested;
  $('d-args-h').textContent = g.modified_by
    ? `Args that will run (modified by ${g.modified_by})`
    : 'Args that will run';
  $('d-args').replaceChildren(
    table(
      ['field', 'value'],
      leaves(runs).map((l) => {
        const v = el('span', textOf(l.value), 'v v-' + typeof l.value);
        const hint = moneyHint(l.path, l.value, p.blast_radius);
        return [el('code', l.path), hint ? withHint(v, hint) : v];
      }),
      'args',
    ),
  );
  const changes =
    g.modified_by || JSON.stringify(runs) !== JSON.stringify(requested) ? structuralDiff(requested, runs) : [];
  $('d-diff-box').hidden = changes.length === 0;
  $('d-diff').replaceChildren(
    table(
      ['field', 'requested', 'will run'],
      changes.map((c) => {
        /** @param {unknown} v @param {string} cls */
        const cell = (v, cls) => {
          const e = el('span', textOf(v), cls);
          const hint = moneyHint(c.path, v, p.blast_radius);
          return hint ? withHint(e, hint) : e;
        };
        return [
          el('code', c.path),
          c.kind === 'added' ? el('span', '(absent)', 'muted') : cell(c.before, 'was'),
          c.kind === 'removed' ? el('span', '(removed)', 'muted') : cell(c.after, 'now'),
        ];
      }),
      'diff',
    ),
  );
}

/** @param {HTMLElement} v @param {string} hint */
function withHint(v, hint) {
  const s = el('span');
  s.append(v, ' ', el('span', '(' + hint + ')', 'muted'));
  return s;
}

/** @param {Gate} g */
function renderSnapshot(g) {
  const snap = (g.payload && g.payload.snapshot) || undefined;
  const final = g.final_snapshot;
  const changed = final && JSON.stringify(final) !== JSON.stringify(snap);
  $('d-snapshot').replaceChildren(
    snap || final
      ? kv({ ...(snap || {}), ...(changed ? { 'after the modification': final } : {}) })
      : el('p', 'No snapshot: the gated action runs outside (external executor), with the args above.', 'muted'),
  );
}

/** @param {Gate} g */
function renderPolicy(g) {
  const p = g.payload || {};
  const box = $('d-policy');
  box.replaceChildren();
  if (p.policy && typeof p.policy === 'object') {
    const pol = /** @type {Record<string, unknown>} */ (p.policy);
    const rule = pol.rule_id || pol.rule || pol.id;
    box.append(
      el('p', `Rule ${rule ? '"' + String(rule) + '"' : '(unnamed)'} decided: ${String(pol.effect || 'require')}.`),
      kv(Object.fromEntries(leaves(pol).map((l) => [l.path, textOf(l.value)]))),
    );
  }
  const rp = p.reviewer_policy;
  if (rp && typeof rp === 'object') {
    const roles = Array.isArray(rp.roles) && rp.roles.length ? rp.roles.join(', ') : 'any reviewer';
    box.append(
      el(
        'p',
        rp.rule
          ? `Rule "${rp.rule}" applied because the action ${p.action} matches it: it takes ${rp.approvals_required} approval(s) from ${roles}.`
          : `No rule matched ${p.action}; the request itself asked for ${rp.approvals_required} approval(s) from ${roles}.`,
      ),
      kv({ 'rule file sha256': rp.policy_sha256 || '(no rule file)' }),
    );
  }
  if (!box.childNodes.length)
    box.append(
      el(
        'p',
        `No policy rule named this request: it needs the approvals it asked for (${g.approvals_required || 1}).`,
        'muted',
      ),
    );
}

/** @param {Gate} g */
function renderEscalation(g) {
  const chain = g.payload && g.payload.escalation;
  const progress = g.escalation_level !== undefined ? g.escalation_level : g.escalation;
  const box = $('d-escalation');
  box.replaceChildren();
  if (progress !== undefined && progress !== null) {
    const p = /** @type {Record<string, unknown>} */ (typeof progress === 'object' ? progress : {});
    const now =
      typeof progress !== 'object'
        ? String(progress)
        : typeof p.level === 'number'
          ? `level ${p.level}` + (typeof p.loop === 'number' && p.loop > 0 ? `, pass ${p.loop + 1}` : '')
          : 'not escalated yet';
    box.append(el('p', 'Escalation now: ' + now, 'esc-now'));
  }
  if (Array.isArray(g.roles_added) && g.roles_added.length)
    box.append(el('p', 'Roles added by the chain: ' + g.roles_added.map(String).join(', '), 'esc-now'));
  if (chain && typeof chain === 'object') {
    const levels = Array.isArray(chain.levels) ? chain.levels : [];
    box.append(
      levels.length
        ? table(
            ['level', 'after', 'notifies', 'adds roles'],
            levels.map((/** @type {Record<string, unknown>} */ l, /** @type {number} */ i) => [
              String(i + 1),
              typeof l.after_seconds === 'number' ? afterText(l.after_seconds) : textOf(l.after),
              Array.isArray(l.notify) ? l.notify.join(', ') : textOf(l.notify),
              Array.isArray(l.roles) ? l.roles.join(', ') : textOf(l.roles),
            ]),
            'esc',
          )
        : kv(chain),
    );
  }
  if (!box.childNodes.length) box.append(el('p', 'No escalation chain.', 'muted'));
}

/** @param {Gate} g */
function renderVotes(g) {
  const votes = g.votes || [];
  const d = g.decision || {};
  const box = $('d-votes');
  box.replaceChildren(el('p', `${votes.length} of ${g.approvals_required || 1} approvals`, 'quorum'));
  if (votes.length)
    box.append(
      table(
        ['reviewer', 'decision', 'note', 'at'],
        votes.map((v) => [
          v.reviewer_id,
          v.decision || 'approve',
          v.note || '',
          v.at ? new Date(v.at).toLocaleString() : '',
        ]),
        'votes',
      ),
    );
  if (d.decision)
    box.append(
      kv({
        decided: `${d.decision} by ${d.reviewer_id} at ${new Date(d.at).toLocaleString()}`,
        reason: d.reason,
        note: d.note,
      }),
    );
  else if (g.status_reason) box.append(kv({ reason: g.status_reason }));
}

/** Reads and shows the audit trail of the open request, with whether its hash chain verifies. */
async function loadAudit() {
  const id = currentId;
  if (!id) return;
  try {
    /** @type {{ data: { verified: boolean, problem?: { index: number, reason: string }, events: AuditEvent[],
     *   store?: { verified: boolean, matches_workflow: boolean } } }} */
    const { data: a } = await api('GET', approvalPath(id) + '/audit');
    if (id !== currentId) return;
    const ok = a.verified && (!a.store || (a.store.verified && a.store.matches_workflow));
    const v = $('d-audit-verified');
    v.textContent = ok
      ? `chain verified (${a.events.length} events)`
      : 'CHAIN BROKEN: ' + (a.problem ? `event ${a.problem.index}: ${a.problem.reason}` : 'the stored copy differs');
    v.className = ok ? 'verified' : 'broken';
    $('d-audit').replaceChildren(
      table(
        ['time', 'event', 'by', 'note'],
        a.events.map((e) => [
          new Date(e.timestamp).toLocaleString(),
          e.event_type,
          `${e.actor_type}:${e.actor_id}`,
          e.note || '',
        ]),
        'audit',
      ),
    );
  } catch (e) {
    $('d-audit-verified').textContent = 'audit trail not available: ' + messageOf(e);
    $('d-audit-verified').className = 'broken';
  }
}
