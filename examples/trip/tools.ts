import { z } from 'zod';
import { DraftRefArgs, TripDraftContent, TripTool } from './policy';
import type { DomainTool } from 'approval-gate/worker';

/** The four tools of the trip domain. Descriptions are what the model reads. */
export const TRIP_TOOLS: readonly DomainTool[] = [
  {
    name: TripTool.SearchPolicy,
    description:
      'Look up the company business-trip policy (duration limits, budget limits, approval tiers). Read-only; runs without approval.',
    risk: 'read',
    action: 'trip.search_policy',
    args: z
      .object({ query: z.string().trim().min(1).max(500).describe('What to look up, e.g. "budget limit"') })
      .strict(),
  },
  {
    name: TripTool.Draft,
    description:
      'Save a new draft of a business-trip request (destination, days, total budget in integer KRW). Each call creates a new draft version; the latest draft is the one that is validated and submitted.',
    risk: 'write',
    action: 'trip.draft',
    args: TripDraftContent,
  },
  {
    name: TripTool.Validate,
    description:
      'Validate the latest draft against the policy (1 to 30 days, at most 1,000,000 KRW per day). Required before submitting; after a failed validation only a new draft is allowed.',
    risk: 'write',
    action: 'trip.validate',
    args: DraftRefArgs,
  },
  {
    name: TripTool.Submit,
    description:
      'Submit the latest validated draft as a business-trip request. The submitted values are taken from the validated draft, not from this call; budgets of 300,000 KRW or more wait for human approval.',
    risk: 'change',
    action: 'trip.submit',
    args: DraftRefArgs,
  },
];

/** Own-property lookup of a trip tool by an untrusted name. */
export function tripTool(name: string): DomainTool | undefined {
  return TRIP_TOOLS.find((t) => t.name === name);
}
