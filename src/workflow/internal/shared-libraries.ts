// Preloaded into the worker's reusable V8 context once (see src/worker/bundle-options.ts), so
// every workflow shares these libraries instead of building its own copy. Namespace
// imports, exported: zod and @noble/hashes declare `sideEffects: false`, so a bare
// preload of them would be dropped by webpack; using them here keeps every module they
// are made of in the shared set.
import * as zod from 'zod';
import * as sha256 from '@noble/hashes/sha256';
import * as hashUtils from '@noble/hashes/utils';
import canonicalize from 'canonicalize';
// The SDK's workflow API (its index and the modules only the index pulls in: metrics,
// random streams, nexus, triggers) is otherwise evaluated again by every new or replayed
// workflow, because the SDK's own bootstrap does not import it. Its module scope holds
// no per-workflow state: every export looks the activator up when it is called.
import * as workflowApi from '@temporalio/workflow';
import { sharedSchema } from '../../common/shared-schema';

// The SDK deep-freezes what is preloaded. zod writes its global config (default locale,
// memoizer) when the first schema is built, so build and use one now, before the freeze;
// later schemas only read that config. Not exported: it stays out of the frozen graph.
const warmUp = zod.z.object({ ok: zod.z.string() });
if (!warmUp.safeParse({ ok: 'yes' }).success || warmUp.safeParse({}).success) throw new Error('zod warm-up failed');

/** `sharedSchema` is here so that its memo is one per worker: the core schemas are built once, by the first workflow that needs them. */
export const SHARED_LIBRARIES = { zod, sha256, hashUtils, canonicalize, sharedSchema, workflowApi };
