import { ERROR_CLASSES, GROUPS, loadErrorClasses, type ErrorCtor } from '../support/error-classes';

/** Two copies of the package in one process, as two versions in node_modules would be. */
function twoCopies(): [Record<string, ErrorCtor>, Record<string, ErrorCtor>] {
  let a!: Record<string, ErrorCtor>;
  let b!: Record<string, ErrorCtor>;
  jest.isolateModules(() => {
    a = loadErrorClasses();
  });
  jest.isolateModules(() => {
    b = loadErrorClasses();
  });
  return [a, b];
}

const [a, b] = twoCopies();
const build = (copy: Record<string, ErrorCtor>, name: string) =>
  new copy[name]!(...ERROR_CLASSES.find((r) => r.name === name)!.args);

describe('the error tree', () => {
  it('loads two separate copies, whose prototype chains do not meet', () => {
    for (const { name } of ERROR_CLASSES) {
      expect(a[name]).not.toBe(b[name]);
      expect(Object.prototype.isPrototypeOf.call(b[name]!.prototype, build(a, name))).toBe(false);
    }
  });

  it.each(ERROR_CLASSES)('$name is an ApprovalGateError of group $group, in its own copy and in the other', (row) => {
    for (const [own, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const err = build(own, row.name);
      expect(err).toBeInstanceOf(Error);
      for (const copy of [own, other]) {
        expect(err instanceof copy.ApprovalGateError!).toBe(true);
        expect(err instanceof copy[row.name]!).toBe(true);
        for (const group of GROUPS) expect([group, err instanceof copy[group]!]).toEqual([group, group === row.group]);
        if (row.family) expect(err instanceof copy[row.family]!).toBe(true);
      }
    }
  });

  it.each(ERROR_CLASSES)('$name is named after its class and says whether a retry may succeed', (row) => {
    const err = build(a, row.name);
    expect(err.name).toBe(row.name);
    expect(err.retryable).toBe(row.retryable);
  });

  it('counts a family member as its family, not as its family’s group', () => {
    const request = build(a, 'GateRequestError');
    expect(request instanceof b.GateAdapterError!).toBe(true);
    expect(request instanceof b.ConfigurationError!).toBe(false);
    // The family is not a subclass: a plain GateAdapterError is no GateRequestError.
    expect(build(a, 'GateAdapterError') instanceof b.GateRequestError!).toBe(false);
    expect(build(a, 'UsageError') instanceof b.GateCliError!).toBe(true);
    expect(build(a, 'UsageError') instanceof b.ApiError!).toBe(false);
  });

  it('tells errors by their brand, never by their name', () => {
    const impostor = Object.assign(new Error('x'), { name: 'GateError', status: 409, code: 'x' });
    expect(impostor instanceof a.GateError!).toBe(false);
    expect(impostor instanceof a.ApprovalGateError!).toBe(false);
    const notObjects: unknown[] = [null, 'GateError', 409];
    for (const v of notObjects) expect(v instanceof a.ApprovalGateError!).toBe(false);
  });

  it("keeps a user's unbranded subclass to its own prototype chain, and inside the tree", () => {
    class DraftMissing extends a.DomainToolError! {}
    const err = new DraftMissing('draft 7 does not exist');
    expect(err.name).toBe('DraftMissing');
    expect(err instanceof DraftMissing).toBe(true);
    expect(err instanceof b.DomainToolError!).toBe(true);
    expect(err instanceof b.ApprovalGateError!).toBe(true);
    // A parent's instance is not a child's, though the child inherits the parent's brand check.
    expect(build(a, 'DomainToolError') instanceof DraftMissing).toBe(false);
  });

  it('says retry for the gate answers that mean "not now", and only for those', () => {
    const answer = (status: number, code: string) => new a.GateError!(status, code, 'm').retryable;
    expect([answer(503, 'temporal_unavailable'), answer(429, 'rate_limited'), answer(409, 'busy')]).toEqual([
      true,
      true,
      true,
    ]);
    expect([answer(409, 'illegal_transition'), answer(422, 'invalid_request'), answer(500, 'internal')]).toEqual([
      false,
      false,
      false,
    ]);
  });
});
