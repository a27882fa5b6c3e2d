import type { Db } from '../../store/db';
import type { ReviewerPolicy } from '../../policy/reviewer-policy';
import { AuditStore } from '../../store/audit-store';
import { GrantStore } from '../../store/grant-store';
import { resolveDomains, type DomainRegistry } from '../../domain/registry';
import type { DomainSource } from '../../domain/types';
import { createModel as defaultCreateModel } from '../models';
import type { Model, ModelSpec } from '../../common/model-spec';
import { createGateActivities } from './gate';
import { createRunActivities } from './run';
import { createConversationActivities, openConversationStore, resolveConversation } from './conversation';
import { createWebhookActivities } from './webhooks';
import { createNotifyActivities } from './notify';
import type { NotifySettings } from '../../notify/config';

export interface ActivityOptions {
  db: Db;
  /** The domains this worker serves (adapters or factories over `db`); none is built in. */
  domains: readonly DomainSource[];
  webhookUrls?: string[];
  webhookSecret?: string;
  /** The notification channels (GateConfig.notify); none: every notice target is refused as misconfigured. */
  notify?: NotifySettings;
  createModel?: (spec: ModelSpec) => Model;
  /** The reviewer rule file that gates opened by workflows on this worker follow (GATE_POLICY_FILE). */
  policy?: ReviewerPolicy;
}

/** Migrates the stores on `db` and returns every activity the worker registers, plus the pieces tests inspect. */
export async function createActivities(o: ActivityOptions): Promise<{
  activities: Record<string, (...args: never[]) => Promise<unknown>>;
  audit: AuditStore;
  domains: DomainRegistry;
}> {
  const audit = new AuditStore(o.db);
  await audit.migrate();
  const grants = new GrantStore(o.db);
  await grants.migrate();
  const domains = await resolveDomains(o.domains, { db: o.db });
  // run_conversations (continue-as-new offload) and run_messages (the conversation log model calls name by ref).
  const conversations = await openConversationStore(o.db);
  const { deliverWebhooks } = createWebhookActivities({ urls: o.webhookUrls ?? [], secret: o.webhookSecret });
  const { deliverNotice } = createNotifyActivities({ settings: o.notify ?? {} });
  const activities = {
    ...createGateActivities({
      audit,
      domains,
      deliverWebhooks,
      deliverNotice,
      webhookReceivers: o.webhookUrls?.length ?? 0,
      policy: o.policy,
      grants,
      notifyDefaults: o.notify?.notify,
    }),
    ...createRunActivities({
      policy: { policy: o.policy, grants, audit, notify: o.notify?.notify },
      domains,
      createModel: o.createModel ?? ((spec) => defaultCreateModel(spec)),
      resolveConversation: (c) => resolveConversation(conversations, c),
    }),
    ...createConversationActivities(conversations),
  };
  return { activities, audit, domains };
}
