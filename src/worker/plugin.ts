import fs from 'node:fs';
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { SimplePlugin } from '@temporalio/plugin';
import { createGateActivities } from './activities/gate';
import { createWebhookActivities } from './activities/webhooks';
import { createNotifyActivities } from './activities/notify';
import { preloadModules } from './bundle-options';
import { loadConfig, type GateConfig } from '../config';
import { digest } from '../common/hashing';
import { createDomainRegistry } from '../domain/registry';
import { GrantStore } from '../store/grant-store';
import { AuditStore } from '../store/audit-store';
import { openDb, type Db } from '../store/db';
import { gateDbFile } from './create-gate-worker';
import { loadPolicyFile } from '../policy/load-file';

/** Where the gates hosted by your worker keep their audit trail, and where their webhooks go. */
export interface ApprovalGatePluginOptions extends Partial<
  Pick<GateConfig, 'dataDir' | 'databaseUrl' | 'webhookUrls' | 'webhookSecret' | 'policyFile' | 'notify'>
> {
  /** An open store to use instead of opening one from `databaseUrl`/`dataDir` (it is not closed by the plugin). */
  db?: Db;
}

/** The gate's workflows: what the plugin adds to your worker's workflows. */
const GATE_WORKFLOWS = ['approvalGateWorkflow', 'webhookDeliveryWorkflow', 'noticeDeliveryWorkflow'] as const;

/**
 * A worker plugin that hosts approval gates in your own worker, so that your workflows'
 * `requireApproval`/`withApproval` gates run beside them:
 * `Worker.create({ workflowsPath, activities, taskQueue, plugins: [approvalGatePlugin()] })`.
 * It adds the gate's workflows to your `workflowsPath` (with a prebuilt `workflowBundle`,
 * export `approvalGateWorkflow`, `webhookDeliveryWorkflow` and `noticeDeliveryWorkflow` from `approval-gate/workflow`
 * in your workflows module instead), its activities (audit trail, webhooks), and the
 * shared-module preload of the gate's own workers (not their frame limit,
 * src/workflow/internal/stack-frames.ts: your workflows keep the SDK's stack traces). The store (SQLite under `GATE_DATA_DIR`,
 * or `GATE_DATABASE_URL`) opens and migrates on the first activity; each option defaults
 * to its environment variable (`policyFile`: GATE_POLICY_FILE, the reviewer rule file the
 * gates follow, loaded and validated here). Register the gate's search attributes on your namespace
 * (`gate worker` does it; see docs/library.md).
 */
export function approvalGatePlugin(options: ApprovalGatePluginOptions = {}): SimplePlugin {
  const cfg = { ...loadConfig(), ...definedOnly(options) };
  // At creation, before the worker starts: a bad rule file throws PolicyFileError naming every problem.
  const policy = cfg.policyFile ? loadPolicyFile(cfg.policyFile) : undefined;
  const db = options.db ?? openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: gateDbFile(cfg) });
  const audit = new AuditStore(db);
  const grants = new GrantStore(db);
  let migrated: Promise<void> | undefined;
  const ready = (): Promise<void> => (migrated ??= audit.migrate().then(() => grants.migrate()));
  const { deliverWebhooks } = createWebhookActivities({ urls: cfg.webhookUrls, secret: cfg.webhookSecret });
  const gate = createGateActivities({
    audit,
    domains: createDomainRegistry([]), // requireApproval gates run no domain tools
    deliverWebhooks,
    deliverNotice: createNotifyActivities({ settings: cfg.notify ?? {} }).deliverNotice,
    webhookReceivers: cfg.webhookUrls.length,
    policy, // requireApproval/withApproval gates follow the same rule file as the API's creates
    grants, // and standing grants may answer them, as they answer the API's creates
    notifyDefaults: cfg.notify?.notify, // GATE_NOTIFY tells of them too, as of the API's creates
  });
  // Every gate activity waits for the migration first; names and signatures stay the gate's own.
  const activities = Object.fromEntries(
    Object.entries(gate).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        await ready();
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  );
  return new GatePlugin(
    {
      name: 'approval-gate',
      activities,
      workflowsPath: (existing) => withGateWorkflows(existing),
      runContext: async (next) => {
        try {
          await next();
        } finally {
          if (!options.db) await db.close();
        }
      },
    },
    preloadModules(),
  );
}

/** SimplePlugin plus the gate's bundler preload (SimplePlugin has no option for it). */
class GatePlugin extends SimplePlugin {
  constructor(
    options: ConstructorParameters<typeof SimplePlugin>[0],
    private readonly preload: string[],
  ) {
    super(options);
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const o = super.configureWorker(options);
    if (o.workflowBundle) return o; // a prebuilt bundle ignores bundler options
    const before = o.bundlerOptions?.preloadModules ?? [];
    return { ...o, bundlerOptions: { ...o.bundlerOptions, preloadModules: [...before, ...this.preload] } };
  }
}

/**
 * A workflows module that exports yours and the gate's: a small file that webpack bundles
 * like any workflows path (it requires both by absolute path). It lives in the
 * `node_modules/.cache` that holds `@temporalio/workflow`, because the SDK resolves the
 * workflow runtime from the workflows path's folder.
 */
function withGateWorkflows(existing: string | undefined): string {
  const ours = require.resolve('../workflow/bundle-entry');
  const lines = [
    '/* generated by approval-gate: your workflows and the approval gate, in one workflows module */',
    `const gate = require(${JSON.stringify(ours)});`,
    existing ? `const yours = require(${JSON.stringify(path.resolve(existing))});` : 'const yours = {};',
    `module.exports = { ...yours, ${GATE_WORKFLOWS.map((w) => `${w}: gate.${w}`).join(', ')} };`,
  ];
  const code = lines.join('\n') + '\n';
  const runtime = require.resolve('@temporalio/workflow');
  const marker = `${path.sep}node_modules${path.sep}`;
  const dir = path.join(runtime.slice(0, runtime.lastIndexOf(marker) + marker.length), '.cache', 'approval-gate');
  const file = path.join(dir, `workflows-${digest([code]).slice(0, 16)}.js`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`; // rename: a worker starting beside this one never reads half a file
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
  }
  return file;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && k !== 'db')) as Partial<T>;
}
