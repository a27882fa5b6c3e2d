import { TRIP_LIMITS, formatKrw } from './policy';

const L = TRIP_LIMITS;

/** The built-in travel policy `search_trip_policy` reads from; numbers come from the rules themselves. */
export const TRIP_POLICY_SECTIONS: readonly { title: string; text: string }[] = [
  { title: 'Duration', text: `A business trip lasts ${L.minDays} to ${L.maxDays} days.` },
  {
    title: 'Budget limit',
    text: `The total budget is an integer amount in KRW and may not exceed ${formatKrw(L.perDayBudgetKrw)} KRW per day (days x ${formatKrw(L.perDayBudgetKrw)}).`,
  },
  {
    title: 'Budget tiers and approval',
    text:
      `Under ${formatKrw(L.noApprovalBelowKrw)} KRW: no approval needed. ` +
      `${formatKrw(L.noApprovalBelowKrw)} to ${formatKrw(L.oneApproverUpToKrw)} KRW: one approver. ` +
      `Over ${formatKrw(L.oneApproverUpToKrw)} KRW: two distinct approvers.`,
  },
  {
    title: 'Process',
    text: 'Draft the request (draft_trip_request), validate the latest draft (validate_trip_request), then submit it (submit_trip_request). After a failed validation, create a corrected draft.',
  },
  {
    title: 'Changes by reviewers',
    text: 'A reviewer may change destination, days or budget; the changed values are what is submitted.',
  },
  {
    title: 'Lodging and transport',
    text: 'Lodging, transport and meals are paid from the trip budget; keep receipts for settlement within 14 days of return.',
  },
];

/** Sections whose title or text contains a word of the query; the whole document when none does. */
export function searchTripPolicy(query: string): { text: string; matched: number } {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 2 || /[^\x00-\x7f]/.test(w));
  const hits = TRIP_POLICY_SECTIONS.filter((s) => words.some((w) => `${s.title} ${s.text}`.toLowerCase().includes(w)));
  const shown = hits.length > 0 ? hits : TRIP_POLICY_SECTIONS;
  return { text: shown.map((s) => `${s.title}: ${s.text}`).join('\n'), matched: hits.length };
}
