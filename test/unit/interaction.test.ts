import {
  checkInteractionResponse,
  Interaction,
  InteractionResponse,
  type InteractionType,
} from '../../src/common/interaction';

const base = { target: 'draft_1', prompt: 'Which destination?' };

function interaction(type: InteractionType, over: Record<string, unknown> = {}): Interaction {
  return Interaction.parse({ ...base, type, ...(type === 'SELECT' ? { options: ['Seoul', 'Busan'] } : {}), ...over });
}

describe('Interaction schema', () => {
  it('defaults required to true', () => {
    expect(interaction('INPUT').required).toBe(true);
  });

  it.each([
    { name: 'SELECT with options', value: { type: 'SELECT', options: ['a'] } },
    { name: 'INPUT without options', value: { type: 'INPUT' } },
    { name: 'CONFIRM, optional', value: { type: 'CONFIRM', required: false } },
    {
      name: 'REVIEW_DIFF with a diff',
      value: { type: 'REVIEW_DIFF', diff: { before: { budget: 1 }, after: { budget: 2 } } },
    },
  ])('accepts $name', ({ value }) => {
    expect(Interaction.safeParse({ ...base, ...value }).success).toBe(true);
  });

  it.each([
    { name: 'SELECT without options', value: { type: 'SELECT' }, path: 'options' },
    { name: 'SELECT with no option', value: { type: 'SELECT', options: [] }, path: 'options' },
    { name: 'SELECT with an empty option', value: { type: 'SELECT', options: [''] }, path: 'options.0' },
    { name: 'options on INPUT', value: { type: 'INPUT', options: ['a'] }, path: 'options' },
    { name: 'options on CONFIRM', value: { type: 'CONFIRM', options: ['yes', 'no'] }, path: 'options' },
    { name: 'options on REVIEW_DIFF', value: { type: 'REVIEW_DIFF', options: ['accept'] }, path: 'options' },
    { name: 'an unknown type', value: { type: 'FREE_TEXT' }, path: 'type' },
    { name: 'a lower-case type', value: { type: 'select', options: ['a'] }, path: 'type' },
    { name: 'an empty prompt', value: { type: 'INPUT', prompt: '' }, path: 'prompt' },
    { name: 'a missing target', value: { type: 'INPUT', target: undefined }, path: 'target' },
    { name: 'a non-boolean required', value: { type: 'INPUT', required: 'yes' }, path: 'required' },
  ])('refuses $name', ({ value, path }) => {
    const r = Interaction.safeParse({ ...base, ...value });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it.each([{ value: 1 }, { value: { a: 1 } }, { value: ['a'] }, {}])(
    'refuses a response value of another JSON kind: %p',
    (response) => {
      expect(InteractionResponse.safeParse(response).success).toBe(false);
    },
  );
});

type Row = {
  type: InteractionType;
  over?: Record<string, unknown>;
  value: string | boolean | null;
  problem: RegExp | null;
  name: string;
};

describe('checkInteractionResponse', () => {
  const rows: Row[] = [
    // INPUT
    { name: 'an INPUT answered with text', type: 'INPUT', value: 'Seoul', problem: null },
    { name: 'a required INPUT left empty', type: 'INPUT', value: '', problem: /required/ },
    { name: 'a required INPUT skipped with null', type: 'INPUT', value: null, problem: /required/ },
    { name: 'an INPUT answered with a boolean', type: 'INPUT', value: true, problem: /string/ },
    {
      name: 'an optional INPUT skipped with null',
      type: 'INPUT',
      over: { required: false },
      value: null,
      problem: null,
    },
    { name: 'an optional INPUT left empty', type: 'INPUT', over: { required: false }, value: '', problem: null },
    {
      name: 'an optional INPUT answered with a boolean',
      type: 'INPUT',
      over: { required: false },
      value: false,
      problem: /string/,
    },
    // SELECT
    { name: 'a SELECT answered with an offered option', type: 'SELECT', value: 'Busan', problem: null },
    {
      name: 'a SELECT answered with an option not offered',
      type: 'SELECT',
      value: 'Tokyo',
      problem: /not one of the options: Seoul, Busan/,
    },
    {
      name: 'a SELECT answered with a differently cased option',
      type: 'SELECT',
      value: 'seoul',
      problem: /not one of the options/,
    },
    { name: 'a SELECT answered with a boolean', type: 'SELECT', value: true, problem: /offered options/ },
    { name: 'a required SELECT skipped with null', type: 'SELECT', value: null, problem: /required/ },
    {
      name: 'an optional SELECT skipped with null',
      type: 'SELECT',
      over: { required: false },
      value: null,
      problem: null,
    },
    {
      name: 'an optional SELECT answered off the list',
      type: 'SELECT',
      over: { required: false },
      value: 'Tokyo',
      problem: /not one of the options/,
    },
    // REVIEW_DIFF
    { name: 'a REVIEW_DIFF accepted', type: 'REVIEW_DIFF', value: 'accept', problem: null },
    { name: 'a REVIEW_DIFF rejected', type: 'REVIEW_DIFF', value: 'reject', problem: null },
    {
      name: 'a REVIEW_DIFF answered "approve"',
      type: 'REVIEW_DIFF',
      value: 'approve',
      problem: /"accept" or "reject"/,
    },
    {
      name: 'a REVIEW_DIFF answered with a boolean',
      type: 'REVIEW_DIFF',
      value: true,
      problem: /"accept" or "reject"/,
    },
    { name: 'a required REVIEW_DIFF skipped with null', type: 'REVIEW_DIFF', value: null, problem: /required/ },
    {
      name: 'an optional REVIEW_DIFF skipped with null',
      type: 'REVIEW_DIFF',
      over: { required: false },
      value: null,
      problem: null,
    },
    // CONFIRM
    { name: 'a CONFIRM answered true', type: 'CONFIRM', value: true, problem: null },
    { name: 'a CONFIRM answered false (a value, not a skip)', type: 'CONFIRM', value: false, problem: null },
    { name: 'a CONFIRM answered "yes"', type: 'CONFIRM', value: 'yes', problem: /true or false/ },
    { name: 'a CONFIRM answered "true" as text', type: 'CONFIRM', value: 'true', problem: /true or false/ },
    { name: 'a required CONFIRM skipped with null', type: 'CONFIRM', value: null, problem: /required/ },
    {
      name: 'an optional CONFIRM skipped with null',
      type: 'CONFIRM',
      over: { required: false },
      value: null,
      problem: null,
    },
  ];

  it('covers every interaction type', () => {
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(['INPUT', 'SELECT', 'REVIEW_DIFF', 'CONFIRM']));
  });

  it.each(rows)('$name: problem $problem', ({ type, over, value, problem }) => {
    const problems = checkInteractionResponse(interaction(type, over), InteractionResponse.parse({ value }));
    if (problem === null) expect(problems).toEqual([]);
    else {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(problem);
    }
  });

  it('names the interaction type in a missing-value problem', () => {
    expect(checkInteractionResponse(interaction('CONFIRM'), { value: null })).toEqual([
      'a value is required for this CONFIRM',
    ]);
  });
});
