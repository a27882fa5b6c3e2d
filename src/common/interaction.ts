import { z } from 'zod';
import { sharedSchema } from './shared-schema';

/** The four kinds of structured question a run can put to a person. */
export const InteractionType = sharedSchema('interaction.InteractionType', () =>
  z.enum(['INPUT', 'SELECT', 'REVIEW_DIFF', 'CONFIRM']),
);
export type InteractionType = z.infer<typeof InteractionType>;

/** A structured question: what kind of answer, about which result, and whether the run can go on without one. */
export const Interaction = sharedSchema('interaction.Interaction', () =>
  z
    .object({
      /** Ignored from a model: the run names each interaction `int_<call id>`, so ids are never reused. */
      id: z.string().min(1).max(128).optional(),
      /** What the person is asked to do. */
      type: InteractionType,
      /** The work result the answer applies to (a draft id, "result", a field name). */
      target: z.string().min(1).max(200),
      /** The question shown to the person. */
      prompt: z.string().min(1).max(2000),
      /** The values a SELECT offers; required for SELECT, refused elsewhere. */
      options: z.array(z.string().min(1).max(200)).min(1).max(50).optional(),
      /** Whether the run may continue without an answer (an empty INPUT, a skipped SELECT). */
      required: z.boolean().default(true),
      /** For REVIEW_DIFF: the before and after the person reviews. */
      diff: z.object({ before: z.unknown(), after: z.unknown() }).optional(),
    })
    .superRefine((v, ctx) => {
      if (v.type === 'SELECT' && !v.options)
        ctx.addIssue({ code: 'custom', path: ['options'], message: 'SELECT needs options' });
      if (v.type !== 'SELECT' && v.options)
        ctx.addIssue({ code: 'custom', path: ['options'], message: `options are only for SELECT, not ${v.type}` });
    }),
);
export type Interaction = z.infer<typeof Interaction>;

/** A person's answer to one interaction. */
export const InteractionResponse = sharedSchema('interaction.InteractionResponse', () =>
  z.object({
    /** The answer: a string for INPUT and SELECT, "accept"/"reject" for REVIEW_DIFF, a boolean for CONFIRM; null skips an optional one. */
    value: z.union([z.string().max(10_000), z.boolean(), z.null()]),
    /** Free text beside the answer (why a diff was rejected). */
    comment: z.string().max(2000).optional(),
    /** Who answered; set by the API from the caller's key. */
    responder_id: z.string().min(1).max(200).optional(),
  }),
);
export type InteractionResponse = z.infer<typeof InteractionResponse>;

/**
 * Checks that a response fits its interaction. Returns a list of problems, empty when
 * it fits: an option not offered, a missing required value, a value of the wrong kind.
 */
export function checkInteractionResponse(interaction: Interaction, response: InteractionResponse): string[] {
  const { value } = response;
  if (value === null || value === '') {
    return interaction.required ? [`a value is required for this ${interaction.type}`] : [];
  }
  switch (interaction.type) {
    case 'INPUT':
      return typeof value === 'string' ? [] : ['INPUT takes a string value'];
    case 'SELECT':
      if (typeof value !== 'string') return ['SELECT takes one of the offered options as a string'];
      return (interaction.options ?? []).includes(value)
        ? []
        : [`"${value}" is not one of the options: ${(interaction.options ?? []).join(', ')}`];
    case 'REVIEW_DIFF':
      return value === 'accept' || value === 'reject' ? [] : ['REVIEW_DIFF takes "accept" or "reject"'];
    case 'CONFIRM':
      return typeof value === 'boolean' ? [] : ['CONFIRM takes true or false'];
  }
}
