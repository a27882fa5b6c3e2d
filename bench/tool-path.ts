// Section `tool`: from sending the decision to the moment the tool activity begins.
// Gate: approve by update -> the gate re-checks the snapshot in the trip adapter ->
// executeTool. Bare: a signal -> one activity. Both activities run in this process, so
// the decision's send time and the tool's start time come from one clock.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { GATE_WORKFLOW_TYPE } from '../src/client/gate-views';
import { startOptions } from '../src/client/start-options';
import type { approvalGateWorkflow } from '../src/workflow/gate/approval-gate';
import { getGateQuery } from '../src/workflow/gate/messages';
import { bareGoSignal, bareStatusQuery, bareToolWorkflow } from './baseline-workflows';
import { Closers } from './closers';
import { dataDir, progress, type BenchContext } from './context';
import { apiGateClient, approval, sectionClient } from './gate-requests';
import { decisionPath, decisionPathText, type DecisionPath } from './history-shape';
import { fmt } from './report';
import { now, percentile, sleep } from './stats';
import { preparedToolGate, startToolGateWorker } from './tool-gate';
import { startBaselineWorker } from './workers';

/** Pause between a workflow's first task and its decision, so the decision meets an idle, cached workflow. */
const SETTLE_MS = 250;

function started(starts: Map<string, number>, key: string, t0: number): number {
  const t = starts.get(key);
  if (t === undefined) throw new Error(`the tool activity of ${key} never started`);
  return t - t0;
}

interface Traced {
  handle: WorkflowHandle;
  sentMs: number;
  marks: Record<string, number>;
}

/** Medians of the samples' decision paths (history timestamps) beside the client's own marks. */
async function timeline(samples: readonly Traced[]): Promise<string> {
  const paths: DecisionPath[] = [];
  const marks: Record<string, number[]> = {};
  for (const s of samples) {
    const path = decisionPath((await s.handle.fetchHistory()).events ?? [], s.sentMs);
    if (!path) continue;
    paths.push(path);
    for (const [k, v] of Object.entries(s.marks)) (marks[k] ??= []).push(v);
  }
  return decisionPathText(paths, marks);
}

export async function toolSection(ctx: BenchContext): Promise<void> {
  const { cfg, report } = ctx;
  const closers = new Closers();
  try {
    const gateWorker = closers.add(await startToolGateWorker(ctx));
    const bareWorker = closers.add(await startBaselineWorker(ctx, 'tool'));
    const clients = {
      bare: sectionClient(ctx, bareWorker.connection),
      gate: sectionClient(ctx, gateWorker.connection),
    };
    const gates = closers.add(
      apiGateClient(clients.gate, gateWorker.taskQueue, dataDir(ctx, 'tool'), cfg.client === 'worker'),
      (g) => g.close(),
    );
    /** Per counted sample: its execution, when the decision was sent (epoch ms) and the client's marks after it. */
    const traced = { bare: [] as Traced[], gate: [] as Traced[] };
    const bare = async (tag: string): Promise<number> => {
      const id = `bare_tool_${tag}_${randomUUID().slice(0, 8)}`;
      const h = await clients.bare.workflow.start(bareToolWorkflow, {
        workflowId: id,
        taskQueue: bareWorker.taskQueue,
        args: [id],
      });
      await h.query(bareStatusQuery); // answered once the first workflow task ran
      await sleep(SETTLE_MS);
      const t0 = now();
      await h.signal(bareGoSignal);
      await h.result();
      const toolAt = started(bareWorker.toolStarts, id, t0);
      traced.bare.push({ handle: h, sentMs: performance.timeOrigin + t0, marks: { 'tool code began': toolAt } });
      return toolAt;
    };
    /** Per gate sample: decision..re-check start, the re-check, re-check end..tool start. */
    const steps: { toRecheck: number; recheck: number; toTool: number }[] = [];
    const gate = async (i: number): Promise<number> => {
      const { requestId, input } = await preparedToolGate(gateWorker.domains, i);
      const session = input.tool!.session_id;
      const h = await clients.gate.workflow.start<typeof approvalGateWorkflow>(
        GATE_WORKFLOW_TYPE,
        startOptions(requestId, input, gateWorker.taskQueue, randomUUID()),
      );
      await h.query(getGateQuery);
      await sleep(SETTLE_MS);
      const t0 = now();
      // As the API sends it: GateClient.decide, which writes the approval's event itself (CallerWrites).
      await gates.decide(requestId, approval({ id: requestId, payloadSha256: input.payload_sha256 }));
      const answered = now() - t0;
      const final = await h.result();
      if (final.status !== 'consumed' || final.execution?.outcome !== 'success') {
        throw new Error(
          `tool gate ${requestId} ended ${final.status} (${final.status_reason ?? final.execution?.error ?? 'no reason'}); the snapshot re-check or the tool failed`,
        );
      }
      const toolAt = started(gateWorker.toolStarts, requestId, t0);
      const r = gateWorker.rechecks.get(session);
      if (r) steps.push({ toRecheck: r.start - t0, recheck: r.end - r.start, toTool: toolAt - (r.end - t0) });
      traced.gate.push({
        handle: h,
        sentMs: performance.timeOrigin + t0,
        marks: { 'decision answered': answered, 'tool code began': toolAt },
      });
      return toolAt;
    };
    for (let w = 0; w < 3; w++) {
      await bare(`warm${w}`); // warm-up, not counted
      await gate(-1 - w);
    }
    traced.bare.length = 0; // the warm-up samples are not counted
    traced.gate.length = 0;
    const samples = { bare: [] as number[], gate: [] as number[] };
    for (let i = 0; i < cfg.toolN; i++) {
      samples.bare.push(await bare(String(i))); // interleaved, so drift in machine load hits both alike
      samples.gate.push(await gate(i));
      if ((i + 1) % 10 === 0) progress(`tool ${i + 1}/${cfg.toolN} samples each`);
    }
    const p = (xs: number[], q: number): number => percentile(xs, q);
    report.ratio('tool.decision_to_tool_start_p50', p(samples.gate, 50), p(samples.bare, 50), 'ms', {
      op: '<=',
      value: 1.3,
    });
    report.ratio('tool.decision_to_tool_start_p95', p(samples.gate, 95), p(samples.bare, 95), 'ms');
    const counted = steps.slice(-cfg.toolN); // the warm-up gates came first
    const step = (k: keyof (typeof steps)[number]): string =>
      fmt(
        percentile(
          counted.map((x) => x[k]),
          50,
        ),
        'ms',
      );
    report.info(
      'tool.gate_steps_p50',
      `decision to re-check start ${step('toRecheck')}, re-check ${step('recheck')}, re-check end to tool start ${step('toTool')}`,
    );
    for (const kind of ['gate', 'bare'] as const) report.info(`tool.timeline_${kind}`, await timeline(traced[kind]));
    report.info(
      'tool.samples',
      `${cfg.toolN} per kind; gate: approve through GateClient.decide (the API's path), the snapshot re-check (trip store), the trip domain's execute (timed at its start); bare: signal, activity`,
    );
  } finally {
    await closers.close();
  }
}
