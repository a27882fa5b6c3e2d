import { prepareCreate } from '../../src/client/create-request';
import { loadConfig } from '../../src/config';
import { CURRENT_PATCH_BASELINE } from '../../src/workflow/gate/patch-baseline';
import { refundBody } from '../support/gate-fixtures';

describe('the patch baseline a new gate declares (GATE_DECLARE_PATCH_BASELINE)', () => {
  it('is declared unless turned off', () => {
    expect(loadConfig({}).declarePatchBaseline).toBe(true);
    for (const v of ['0', 'false', 'OFF'])
      expect(loadConfig({ GATE_DECLARE_PATCH_BASELINE: v }).declarePatchBaseline).toBe(false);
    for (const v of ['1', 'true', 'on'])
      expect(loadConfig({ GATE_DECLARE_PATCH_BASELINE: v }).declarePatchBaseline).toBe(true);
    expect(() => loadConfig({ GATE_DECLARE_PATCH_BASELINE: 'later' })).toThrow('GATE_DECLARE_PATCH_BASELINE=later');
  });

  it('names the current baseline in the input, or leaves the field out', () => {
    const caller = { agentId: 'agent-1' };
    const body = refundBody('a');
    const on = prepareCreate(body, caller);
    expect(on.input.patch_baseline).toBe(CURRENT_PATCH_BASELINE);
    const off = prepareCreate(body, caller, { declarePatchBaseline: false });
    expect('patch_baseline' in off.input).toBe(false);
    // The request is the same either way: the field is not part of what a retry is compared on.
    expect(off.input.create_sha256).toBe(on.input.create_sha256);
  });
});
