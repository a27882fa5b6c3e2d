import { sharedSchema } from '../../src/common/shared-schema';
import { DecisionMessage } from '../../src/common/decision';

describe('sharedSchema', () => {
  it('builds a schema once and hands every later caller the same instance', () => {
    let builds = 0;
    const build = () => ({ built: ++builds });
    const a = sharedSchema('test.Once', build);
    const b = sharedSchema('test.Once', build);
    expect(a).toBe(b);
    expect(builds).toBe(1);
  });

  it('gives the core schemas as usable zod schemas', () => {
    expect(DecisionMessage.safeParse({ decision: 'Approve' }).success).toBe(false);
    expect(sharedSchema('decision.DecisionMessage', () => 'not built again')).toBe(DecisionMessage);
  });
});
