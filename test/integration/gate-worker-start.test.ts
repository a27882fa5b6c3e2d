import { Runtime, DefaultLogger, type LogEntry } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { randomUUID } from 'node:crypto';
import { createGateWorker } from '../../src/worker';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/common/search-attributes';
import { agentRunWorkflow } from '../../src/workflow/agent-run/agent-run';
import type { RunInput } from '../../src/workflow/agent-run/messages';
import { tripDomain } from '../../examples/trip';

// The runtime's logger, installed before any worker of this file: every SDK log line lands here.
const logged: LogEntry[] = [];
Runtime.install({ logger: new DefaultLogger('DEBUG', (entry) => void logged.push(entry)) });

const address = (): string => process.env.TEMPORAL_ADDRESS!;

describe('createGateWorker', () => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await Connection.connect({ address: address() });
  });
  afterAll(async () => {
    await connection.close();
  });

  it('registers the gate search attributes on a namespace that lacks them, so gates can be filtered in the Web UI', async () => {
    const namespace = `fresh-${randomUUID().slice(0, 8)}`;
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const before = await connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(before.customAttributes ?? {})).not.toContain(SEARCH_ATTRIBUTE_NAMES.status);

    const w = await createGateWorker({
      domains: [],
      namespace,
      taskQueue: `start-${randomUUID()}`,
      temporalAddress: address(),
      dataDir: process.env.GATE_TEST_TMP!,
    });
    try {
      const after = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(after.customAttributes ?? {})).toEqual(
        expect.arrayContaining(Object.values(SEARCH_ATTRIBUTE_NAMES)),
      );
    } finally {
      const running = w.run();
      await w.shutdown();
      await running;
    }
  });

  it('starts on the prebuilt bundle without a warning about ignored bundler options', async () => {
    process.env.GATE_WORKFLOW_BUNDLE = process.env.GATE_TEST_WORKFLOW_BUNDLE;
    const w = await createGateWorker({
      domains: [],
      taskQueue: `start-${randomUUID()}`,
      temporalAddress: address(),
      dataDir: process.env.GATE_TEST_TMP!,
      registerSearchAttributes: false,
    });
    try {
      const warnings = logged.filter((e) => e.level === 'WARN').map((e) => e.message);
      expect(warnings.filter((m) => /bundlerOptions/.test(m))).toEqual([]);
      expect(logged.some((e) => /Workflow bundle|workflowBundle|Creating worker/i.test(e.message))).toBe(true);
    } finally {
      const running = w.run();
      await w.shutdown();
      await running;
    }
  });

  it("runs the user's activity interceptors around its activities", async () => {
    process.env.GATE_WORKFLOW_BUNDLE = process.env.GATE_TEST_WORKFLOW_BUNDLE;
    const seen: string[] = [];
    const taskQueue = `start-${randomUUID()}`;
    const w = await createGateWorker({
      domains: [tripDomain],
      taskQueue,
      temporalAddress: address(),
      dataDir: process.env.GATE_TEST_TMP!,
      registerSearchAttributes: false,
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: {
              execute: (input, next) => (seen.push(ctx.info.activityType), next(input)),
            },
          }),
        ],
      },
    });
    const running = w.run();
    try {
      const runId = `run_${randomUUID().slice(0, 12)}`;
      const input: RunInput = {
        run_id: runId,
        goal: 'Answer at once',
        domain: 'trip',
        model: { kind: 'scripted', turns: [{ content: 'Nothing to do.' }] },
        agent_id: 'agent-interceptors',
        approval_ttl_seconds: 600,
        max_turns: 2,
      };
      const result = await new Client({ connection }).workflow.execute(agentRunWorkflow, {
        workflowId: runId,
        taskQueue,
        args: [input],
      });
      expect(result.final_answer).toBe('Nothing to do.');
      expect(seen).toContain('callModel');
    } finally {
      await w.shutdown();
      await running;
    }
  });
});
