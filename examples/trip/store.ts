import { randomUUID } from 'node:crypto';
import { digest } from 'approval-gate';
import {
  TRIP_POLICY_VERSION,
  validateTripDraft,
  type TripDraftContent,
  type TripIssue,
  type TripSessionState,
} from './policy';
import type { Db } from 'approval-gate/worker';

/** A stored draft version. Numbers are normalised: pg returns BIGINT as a string. */
export interface DraftRow {
  draft_id: string;
  session_id: string;
  version: number;
  destination: string;
  days: number;
  budget: number;
  /** digest({ destination, days, budget }): the snapshot's `result_sha256`. */
  content_sha256: string;
  /** `model` (draft tool) or `review` (a reviewer's modification). */
  source: 'model' | 'review';
  parent_draft_id: string | null;
}

/** What a validation attests; its digest is the `validation_sha256` an approval binds to. */
export interface ValidationRecord {
  policy_version: string;
  draft_id: string;
  draft_version: number;
  draft_sha256: string;
  ok: boolean;
  errors: TripIssue[];
}

export interface ValidationRow extends ValidationRecord {
  validation_id: string;
  validation_sha256: string;
}

/** One submitted trip request, as `GET /v1/domains/trip/submissions` lists it. */
export interface TripSubmission {
  submission_id: string;
  draft_id: string;
  destination: string;
  days: number;
  budget: number;
  /** The idempotency key the submission ran under: the gate's request id. */
  request_id: string;
}

/** The part of a draft that is hashed and validated. */
export function contentOf(d: Pick<DraftRow, 'destination' | 'days' | 'budget'>): TripDraftContent {
  return { destination: d.destination, days: d.days, budget: d.budget };
}

function toDraft(r: Record<string, unknown>): DraftRow {
  return {
    draft_id: String(r.draft_id),
    session_id: String(r.session_id),
    version: Number(r.version),
    destination: String(r.destination),
    days: Number(r.days),
    budget: Number(r.budget),
    content_sha256: String(r.content_sha256),
    source: r.source === 'review' ? 'review' : 'model',
    parent_draft_id: r.parent_draft_id == null ? null : String(r.parent_draft_id),
  };
}

const DRAFT_COLUMNS =
  'draft_id, session_id, version, destination, days, budget, content_sha256, source, parent_draft_id';

/** The highest draft version of a session, or undefined when it has none. */
export async function latestDraft(db: Db, sessionId: string): Promise<DraftRow | undefined> {
  const rows = await db.query(
    `SELECT ${DRAFT_COLUMNS} FROM trip_drafts WHERE session_id = ? ORDER BY version DESC LIMIT 1`,
    [sessionId],
  );
  return rows[0] ? toDraft(rows[0]) : undefined;
}

/** A draft of this session by id; drafts of other sessions are invisible. */
export async function getDraft(db: Db, sessionId: string, draftId: string): Promise<DraftRow | undefined> {
  const rows = await db.query(`SELECT ${DRAFT_COLUMNS} FROM trip_drafts WHERE session_id = ? AND draft_id = ?`, [
    sessionId,
    draftId,
  ]);
  return rows[0] ? toDraft(rows[0]) : undefined;
}

/**
 * Writes the next draft version. Version = max + 1; a concurrent writer in the same
 * session hits UNIQUE (session_id, version) and throws, so the caller retries.
 */
export async function insertDraft(
  tx: Db,
  sessionId: string,
  content: TripDraftContent,
  source: DraftRow['source'],
  parentDraftId: string | null = null,
): Promise<DraftRow> {
  const [max] = await tx.query<{ v: unknown }>('SELECT MAX(version) AS v FROM trip_drafts WHERE session_id = ?', [
    sessionId,
  ]);
  const row: DraftRow = {
    draft_id: `draft_${randomUUID()}`,
    session_id: sessionId,
    version: Number(max?.v ?? 0) + 1,
    ...contentOf(content),
    content_sha256: digest(contentOf(content)),
    source,
    parent_draft_id: parentDraftId,
  };
  await tx.run(`INSERT INTO trip_drafts (${DRAFT_COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.draft_id,
    row.session_id,
    row.version,
    row.destination,
    row.days,
    row.budget,
    row.content_sha256,
    row.source,
    row.parent_draft_id,
    new Date().toISOString(),
  ]);
  return row;
}

/** The most recent validation of a draft, or undefined when it was never validated. */
export async function latestValidation(db: Db, draftId: string): Promise<ValidationRow | undefined> {
  const rows = await db.query<{ validation_id: string; record: string; validation_sha256: string }>(
    'SELECT validation_id, record, validation_sha256 FROM trip_validations WHERE draft_id = ? ORDER BY attempt DESC LIMIT 1',
    [draftId],
  );
  const r = rows[0];
  return r
    ? {
        ...(JSON.parse(r.record) as ValidationRecord),
        validation_id: r.validation_id,
        validation_sha256: r.validation_sha256,
      }
    : undefined;
}

/**
 * Validates a draft and records the result. The record holds no id or time, so the same
 * content under the same rules always hashes the same: re-validating does not drift a snapshot.
 */
export async function insertValidation(tx: Db, draft: DraftRow): Promise<ValidationRow> {
  const result = validateTripDraft(contentOf(draft));
  const record: ValidationRecord = {
    policy_version: TRIP_POLICY_VERSION,
    draft_id: draft.draft_id,
    draft_version: draft.version,
    draft_sha256: draft.content_sha256,
    ok: result.ok,
    errors: result.errors,
  };
  const row: ValidationRow = { ...record, validation_id: `val_${randomUUID()}`, validation_sha256: digest(record) };
  const [max] = await tx.query<{ a: unknown }>('SELECT MAX(attempt) AS a FROM trip_validations WHERE draft_id = ?', [
    draft.draft_id,
  ]);
  await tx.run(
    'INSERT INTO trip_validations (validation_id, session_id, draft_id, attempt, ok, record, validation_sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [
      row.validation_id,
      draft.session_id,
      draft.draft_id,
      Number(max?.a ?? 0) + 1,
      record.ok ? 1 : 0,
      JSON.stringify(record),
      row.validation_sha256,
      new Date().toISOString(),
    ],
  );
  return row;
}

/** The submission of a draft, if it was ever submitted. */
export async function submissionForDraft(db: Db, draftId: string): Promise<TripSubmission | undefined> {
  const rows = await db.query(`SELECT ${SUBMISSION_COLUMNS} FROM trip_submissions WHERE draft_id = ?`, [draftId]);
  return rows[0] ? toSubmission(rows[0]) : undefined;
}

/** Inserts a submission; UNIQUE (draft_id) and UNIQUE (request_id) make a second one throw. */
export async function insertSubmission(
  tx: Db,
  sessionId: string,
  s: Omit<TripSubmission, 'submission_id'>,
): Promise<TripSubmission> {
  const row: TripSubmission = { submission_id: `sub_${randomUUID()}`, ...s };
  await tx.run(
    `INSERT INTO trip_submissions (${SUBMISSION_COLUMNS}, session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.submission_id,
      row.draft_id,
      row.destination,
      row.days,
      row.budget,
      row.request_id,
      sessionId,
      new Date().toISOString(),
    ],
  );
  return row;
}

const SUBMISSION_COLUMNS = 'submission_id, draft_id, destination, days, budget, request_id';

function toSubmission(r: Record<string, unknown>): TripSubmission {
  return {
    submission_id: String(r.submission_id),
    draft_id: String(r.draft_id),
    destination: String(r.destination),
    days: Number(r.days),
    budget: Number(r.budget),
    request_id: String(r.request_id),
  };
}

/**
 * Every submission, oldest first (optionally of one session, or of some sessions only).
 * Backs `GET /v1/domains/trip/submissions`, which passes the runs the caller may see.
 */
export async function listSubmissions(
  db: Db,
  opts: { sessionId?: string; sessionIds?: readonly string[] } = {},
): Promise<TripSubmission[]> {
  if (opts.sessionIds !== undefined) {
    const rows: Record<string, unknown>[] = [];
    // In chunks: SQLite and PostgreSQL both cap the parameters of one statement.
    for (let i = 0; i < opts.sessionIds.length; i += 500) {
      const chunk = opts.sessionIds.slice(i, i + 500);
      rows.push(
        ...(await db.query(
          `SELECT ${SUBMISSION_COLUMNS}, created_at FROM trip_submissions WHERE session_id IN (${chunk.map(() => '?').join(', ')})`,
          [...chunk],
        )),
      );
    }
    rows.sort((a, b) =>
      String(a.created_at) === String(b.created_at)
        ? String(a.submission_id).localeCompare(String(b.submission_id))
        : String(a.created_at).localeCompare(String(b.created_at)),
    );
    return rows.map(toSubmission);
  }
  const where = opts.sessionId === undefined ? '' : ' WHERE session_id = ?';
  const rows = await db.query(
    `SELECT ${SUBMISSION_COLUMNS} FROM trip_submissions${where} ORDER BY created_at, submission_id`,
    opts.sessionId === undefined ? [] : [opts.sessionId],
  );
  return rows.map(toSubmission);
}

/** The session as the policy sees it, plus the rows behind it. */
export interface TripSessionView {
  state: TripSessionState;
  draft?: DraftRow;
  validation?: ValidationRow;
  submission?: TripSubmission;
}

/** Reads the latest draft, its latest validation and its submission. */
export async function loadTripSession(db: Db, sessionId: string): Promise<TripSessionView> {
  const draft = await latestDraft(db, sessionId);
  if (!draft) return { state: {} };
  const validation = await latestValidation(db, draft.draft_id);
  const submission = await submissionForDraft(db, draft.draft_id);
  return {
    draft,
    validation,
    submission,
    state: {
      latestDraft: { draft_id: draft.draft_id, version: draft.version },
      latestValidation: validation && { ok: validation.ok, errors: validation.errors },
      submissionId: submission?.submission_id,
    },
  };
}
