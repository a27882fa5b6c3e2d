import { z } from 'zod';
import { sharedSchema } from '../common/shared-schema';

// The names both rule file versions (src/policy/reviewer-policy.ts, src/policy/policy-v2.ts) and
// the evidence use; here so that neither version's module imports the other's. Their
// shared-schema ids keep the module they were first defined in.

/** A role name as keys and ID tokens carry it: `finance`, `ops-oncall`, `team:payments`. */
export const RoleName = sharedSchema('reviewer-policy.RoleName', () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/,
      'a role is letters, digits and . _ : @ / -, starting with a letter or digit',
    ),
);

/** An action pattern: a namespaced verb where `*` stands for any run of characters (`refund.*`, `*`). */
export const ActionPattern = sharedSchema('reviewer-policy.ActionPattern', () =>
  z
    .string()
    .min(1)
    .max(100)
    .regex(/^(\*|[a-z0-9_*]+(\.[a-z0-9_*]+)*)$/, 'an action pattern is dot-separated lower-case words and * wildcards'),
);
