import fs from 'node:fs';
import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

export const HISTORIES_DIR = path.join(__dirname, 'histories');

/**
 * Recorded history sets, oldest first. `v1` (the files at the top of `histories/`) was
 * recorded before the batched trail, the local re-check and the other patched changes;
 * `v2` with the trail written by local activities; `v3` with the trail written by one
 * regular activity per workflow task; `v4` with the first event written by the gate's creator
 * (`GateInput.requested_event`); `v5` adds a gate that continues as new under a flood of
 * signals (`flood-continue.<n>.json`, one file per execution); `v6` approves and consumes with
 * the updates' caller writing their events (`CallerWrites`); `v7` adds reviewer roles
 * (a gate whose evidence names them, `reviewer-roles.json`; a run whose tool gate follows
 * the worker's rule file, `trip-roles`; every run asks the rule file through an
 * activity) and a `workflow/` set: `requireApproval`/`withApproval` parents and their gates,
 * under the rule file and in a tenant; `v8` re-checks a tool gate's snapshot inside its tool's activity
 * (`recheckAndExecuteTool`), every new gate under the second patch baseline; `v9` has the
 * caller's audit intents (`CallerWrites.recorded`, `requested_event.recorded`: an external
 * gate sends nothing to the store when it ends), every new gate under the third baseline; `v10` has
 * runs on the conversation log (model calls name the stored conversation by ref, the tail
 * inline; gates as in v9); `v11` has the gate's lazy deadlines (a wait's timer is never cancelled;
 * a later wait reuses a running one), every new gate under the fourth baseline; `v12` has
 * the baseline declared by the gate's creator (`GateInput.patch_baseline`: no patch marker
 * and no `TemporalChangeVersion` upsert in a new gate's history). A set is never
 * re-recorded or edited: a new workflow version records a new set beside the others, and
 * every set must keep replaying.
 */
export const HISTORY_VERSIONS = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9', 'v10', 'v11', 'v12'] as const;
export type HistoryVersion = (typeof HISTORY_VERSIONS)[number];

/** Folder of a set's approvalGate histories. */
export function gateHistoriesDir(version: HistoryVersion): string {
  return version === 'v1' ? HISTORIES_DIR : path.join(HISTORIES_DIR, version);
}

/** Folder of a set's agentRun histories (with their child gates'). */
export function runHistoriesDir(version: HistoryVersion): string {
  return path.join(gateHistoriesDir(version), 'agent-run');
}

/** Versions with a `workflow/` set (user workflows that open gates with the workflow API). */
export const WORKFLOW_SET_VERSIONS: readonly HistoryVersion[] = ['v7', 'v9', 'v11', 'v12'];

/** Folder of a set's user-workflow histories (the fixture workflows' and their gates'). */
export function workflowHistoriesDir(version: HistoryVersion): string {
  return path.join(gateHistoriesDir(version), 'workflow');
}

export type History = proto.temporal.api.history.v1.IHistory;

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

/**
 * The `.json` histories of `versions`, each as `<version>/<file>`, found in `dirOf(version)`,
 * with readers for their parts: a replay test's file list and lookups in one place.
 */
export function historySet(versions: readonly HistoryVersion[], dirOf: (v: HistoryVersion) => string) {
  const files = versions.flatMap((v) =>
    fs
      .readdirSync(dirOf(v))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => `${v}/${f}`),
  );
  const versionOf = (file: string): HistoryVersion => file.split('/')[0] as HistoryVersion;
  const nameOf = (file: string): string => path.basename(file.split('/')[1]!, '.json');
  const read = (file: string): History =>
    decodeHistory(fs.readFileSync(path.join(dirOf(versionOf(file)), file.split('/')[1]!), 'utf8'));
  const idOf = (file: string): string => `${versionOf(file)}-${nameOf(file)}`;
  return { files, versionOf, nameOf, read, idOf };
}

/** The ids of the patch markers in a history, in order. */
export function patchIdsOf(events: NonNullable<History['events']>): string[] {
  return events.flatMap((e) => {
    const a = e.markerRecordedEventAttributes;
    const data = a?.markerName === 'core_patch' ? a.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
}
