import {
  TripDraftContent,
  TripRevisionPatch,
  formatKrw,
  issuesOf,
  permittedTripTools,
  tripBlockReason,
  tripSummary,
  tripTier,
  validateTripDraft,
} from '../../examples/trip/policy';

const draft = { draft_id: 'draft_a', version: 1 };

describe('trip policy tiers', () => {
  it.each([
    [299_999, { policy: 'allow' }],
    [300_000, { policy: 'require_approval', approvals_required: 1 }],
    [2_000_000, { policy: 'require_approval', approvals_required: 1 }],
    [2_000_001, { policy: 'require_approval', approvals_required: 2 }],
  ])('puts a budget of %d KRW in the right tier', (budget, tier) => {
    expect(tripTier(budget)).toEqual(tier);
  });
});

describe('trip draft validation', () => {
  it('passes 1 to 30 days within 1,000,000 KRW a day', () => {
    expect(validateTripDraft({ destination: 'Busan', days: 1, budget: 1_000_000 })).toEqual({ ok: true, errors: [] });
    expect(validateTripDraft({ destination: 'Busan', days: 30, budget: 30_000_000 }).ok).toBe(true);
  });

  it.each([0, 31, -2])('fails %d days with an error on days', (days) => {
    const r = validateTripDraft({ destination: 'Busan', days, budget: 100_000 });
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.path)).toContain('days');
  });

  it('fails a budget over days x 1,000,000 KRW and says the limit', () => {
    const r = validateTripDraft({ destination: 'Busan', days: 2, budget: 2_000_001 });
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([{ path: 'budget', message: expect.stringContaining('limit 2,000,000 KRW') }]);
  });

  it('fails a budget of zero', () => {
    expect(validateTripDraft({ destination: 'Busan', days: 2, budget: 0 }).errors[0]?.path).toBe('budget');
  });

  it('lets out-of-range integers through the schema so validation can record them, but not fractions', () => {
    expect(TripDraftContent.safeParse({ destination: 'Busan', days: 31, budget: 1 }).success).toBe(true);
    expect(TripDraftContent.safeParse({ destination: 'Busan', days: 1.5, budget: 1 }).success).toBe(false);
    expect(TripDraftContent.safeParse({ destination: 'Busan', days: 1, budget: 1, extra: 1 }).success).toBe(false);
    expect(TripDraftContent.safeParse({ destination: 'Busan', days: -1, budget: 1 }).success).toBe(false);
    expect(TripDraftContent.safeParse({ destination: 'Busan', days: 0, budget: 0 }).success).toBe(true);
  });
});

describe('permitted trip tools', () => {
  it('allows search, draft and validate before anything is validated, but not submit', () => {
    expect(permittedTripTools({})).toEqual(['search_trip_policy', 'draft_trip_request', 'validate_trip_request']);
    expect(permittedTripTools({ latestDraft: draft })).toEqual([
      'search_trip_policy',
      'draft_trip_request',
      'validate_trip_request',
    ]);
  });

  it('allows only drafting (and the read-only policy search) after a failed validation', () => {
    const s = {
      latestDraft: draft,
      latestValidation: { ok: false, errors: [{ path: 'days', message: 'days must be between 1 and 30 (got 31)' }] },
    };
    expect(permittedTripTools(s)).toEqual(['search_trip_policy', 'draft_trip_request']);
    expect(tripBlockReason(s, 'submit_trip_request')).toMatch(
      /failed validation: days must be between 1 and 30.*Only draft_trip_request is permitted/,
    );
    expect(tripBlockReason(s, 'validate_trip_request')).toMatch(/Only draft_trip_request is permitted/);
  });

  it('allows submit once the latest draft passed validation, and not after it was submitted', () => {
    const ok = { latestDraft: draft, latestValidation: { ok: true, errors: [] } };
    expect(permittedTripTools(ok)).toContain('submit_trip_request');
    expect(tripBlockReason({ ...ok, submissionId: 'sub_1' }, 'submit_trip_request')).toMatch(
      /already submitted as sub_1/,
    );
  });

  it('blocks a draft_id that is not the latest draft', () => {
    const ok = { latestDraft: draft, latestValidation: { ok: true, errors: [] } };
    expect(tripBlockReason(ok, 'submit_trip_request', 'draft_old')).toMatch(
      /not the latest draft.*draft_a \(version 1\)/,
    );
  });

  it('blocks submit with no draft and names the next steps', () => {
    expect(tripBlockReason({}, 'submit_trip_request')).toMatch(/draft_trip_request, then validate_trip_request/);
  });
});

describe('trip texts', () => {
  it('formats amounts and keeps the summary within 120 characters', () => {
    expect(formatKrw(800_000)).toBe('800,000');
    expect(tripSummary({ destination: 'Busan', days: 2, budget: 800_000 })).toBe(
      'Business trip to Busan, 2 days, budget 800,000 KRW',
    );
    expect(tripSummary({ destination: 'X'.repeat(80), days: 30, budget: 30_000_000 }).length).toBeLessThanOrEqual(120);
  });

  it('names each unknown field of a patch by its path', () => {
    const r = TripRevisionPatch.safeParse({ budget: '500000', hotel: 'x', car: 1 });
    expect(r.success).toBe(false);
    const paths = issuesOf(r.error!).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['budget', 'hotel', 'car']));
  });
});
