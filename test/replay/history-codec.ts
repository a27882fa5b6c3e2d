import fs from 'node:fs';
import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

/**
 * One folder per release (`0.1.0/`, ...), each recorded once by record-histories.ts and never
 * edited. REPLAY_HISTORIES_DIR points the replay tests at another folder of release folders,
 * to check a recording before it is moved here (test/replay/README.md).
 */
export const HISTORIES_DIR = process.env.REPLAY_HISTORIES_DIR || path.join(__dirname, 'histories');

/**
 * The sets of a release folder: `gate/` (gates created as the API creates them),
 * `agent-run/` (runs and their tool gates), `workflow/` (user workflows that open gates
 * with `requireApproval`/`withApproval`, and their gates).
 */
export const HISTORY_SETS = ['gate', 'agent-run', 'workflow'] as const;
export type HistorySet = (typeof HISTORY_SETS)[number];

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

/** Orders two release versions (`0.1.0` before `0.2.0` before `0.10.0`). */
export function compareReleases(a: string, b: string): number {
  const key = (v: string): number[] => SEMVER.exec(v)!.slice(1).map(Number);
  const [x, y] = [key(a), key(b)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
}

/** The release folders under `histories/`, oldest first. */
export function releases(dir: string = HISTORIES_DIR): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && SEMVER.test(d.name))
    .map((d) => d.name)
    .sort(compareReleases);
}

/**
 * One recorded history: `<path>.<WorkflowType>.json`, or `<path>.<n>.<WorkflowType>.json`
 * for the n-th execution of a workflow that continued as new.
 */
export interface HistoryFile {
  release: string;
  set: HistorySet;
  /** The file name without `.json`. */
  name: string;
  /** The recorded path the file belongs to (the name's first part). */
  path: string;
  /** The workflow type (the name's last part, and the type in the history's first event). */
  type: string;
  /** The execution's number for a workflow that continued as new; 1 otherwise. */
  execution: number;
  file: string;
}

/** Names a file as the recorder writes it. */
export function historyFileName(pathName: string, type: string, execution?: number): string {
  return `${pathName}${execution === undefined ? '' : `.${execution}`}.${type}.json`;
}

/** The histories of `set` in each of `inReleases` (every release folder by default), sorted. */
export function historyFiles(set: HistorySet, inReleases: readonly string[] = releases()): HistoryFile[] {
  return inReleases.flatMap((release) => {
    const dir = path.join(HISTORIES_DIR, release, set);
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => {
        const name = f.slice(0, -'.json'.length);
        const parts = name.split('.');
        const n = parts.length === 3 ? Number(parts[1]) : 1;
        return {
          release,
          set,
          name,
          path: parts[0]!,
          type: parts[parts.length - 1]!,
          execution: n,
          file: path.join(dir, f),
        };
      });
  });
}

/** The id a replay reports a file under: `<release>/<set>/<name>`. */
export function replayId(f: HistoryFile): string {
  return `${f.release}/${f.set}/${f.name}`;
}

export type History = proto.temporal.api.history.v1.IHistory;

/** A recorded file's history. */
export function readHistory(f: HistoryFile): History {
  return decodeHistory(fs.readFileSync(f.file, 'utf8'));
}

/*
 * History <-> proto3 JSON, the format of `temporal workflow show --output json` and of the
 * SDK's historyToJSON/historyFromJSON. We do not call those two: in this install npm keeps
 * three copies of protobufjs 8 (under @temporalio/common, /proto and /worker, because the root
 * holds grpc's protobufjs 7), and common's protojson refuses proto's reflected types with
 * "type must be a Type". Using protojson from the same copy as @temporalio/proto avoids that.
 * Once protobufjs is deduplicated, `historyToJSON(history)` and passing the parsed JSON
 * straight to runReplayHistories produce and read the very same files.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a path resolved at runtime, from @temporalio/proto's own copy
const protojson = require(
  require.resolve('protobufjs/ext/protojson', {
    paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))],
  }),
) as {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

/** A fetched history as proto3 JSON text. */
export function encodeHistory(history: History): string {
  return (
    JSON.stringify(protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2) +
    '\n'
  );
}

/** A proto3 JSON history file back into the History object `runReplayHistories` takes. */
export function decodeHistory(json: string): History {
  return protojson.fromJson(historyType, JSON.parse(json), { ignoreUnknownFields: true }) as History;
}

/** The ids of the patch markers in a history, in order. */
export function patchIdsOf(events: NonNullable<History['events']>): string[] {
  return events.flatMap((e) => {
    const a = e.markerRecordedEventAttributes;
    const data = a?.markerName === 'core_patch' ? a.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
}

/**
 * What a history did, as `kind:name` marks: activities, messages in and out (`decide:<word>`
 * for each decision), children, markers (`patch:<id>` for each patch marker), the close, and
 * `event:<type>` for each audit event the workflow sent to the store (`recordAuditEvents`).
 */
export function marksOf(h: History): Set<string> {
  const out = new Set<string>();
  for (const e of h.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    const activity = a?.activityType?.name;
    if (activity) out.add(`activity:${activity}`);
    if (activity === 'recordAuditEvents')
      for (const ev of (firstPayload(a!.input) as { events: { event_type: string }[] }).events)
        out.add(`event:${ev.event_type}`);
    const s = e.workflowExecutionSignaledEventAttributes;
    if (s?.signalName) out.add(`signal:${s.signalName}`);
    const u = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (u?.name) out.add(`update:${u.name}`);
    const decision =
      s?.signalName === 'decide' ? firstPayload(s.input) : u?.name === 'decide' ? firstPayload(u.args) : undefined;
    if (decision) out.add(`decide:${(decision as { decision: string }).decision}`);
    const x = e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName;
    if (x) out.add(`signal-out:${x}`);
    const c = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
    if (c) out.add(`child:${c}`);
    if (e.timerFiredEventAttributes) out.add('timer-fired');
    if (e.workflowExecutionCancelRequestedEventAttributes) out.add('cancel-requested');
    if (e.requestCancelExternalWorkflowExecutionInitiatedEventAttributes) out.add('cancel-out');
    if (e.workflowExecutionCompletedEventAttributes) out.add('closed:completed');
    if (e.workflowExecutionCanceledEventAttributes) out.add('closed:canceled');
    if (e.workflowExecutionContinuedAsNewEventAttributes) out.add('closed:continued-as-new');
    const m = e.markerRecordedEventAttributes?.markerName;
    if (m) out.add(`marker:${m}`);
  }
  for (const id of patchIdsOf(h.events ?? [])) out.add(`patch:${id}`);
  return out;
}

/** The JSON of the first payload of a start, scheduling or child-start event. */
export function firstPayload(p: { payloads?: { data?: Uint8Array | null }[] | null } | null | undefined): unknown {
  const data = p?.payloads?.[0]?.data;
  return data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
}
