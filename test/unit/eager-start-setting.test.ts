import { loadConfig } from '../../src/config';

describe('eager creates (GATE_EAGER_START)', () => {
  it('are off unless turned on', () => {
    expect(loadConfig({}).eagerStart).toBe(false);
    for (const v of ['0', 'false', 'off', '']) expect(loadConfig({ GATE_EAGER_START: v }).eagerStart).toBe(false);
    for (const v of ['1', 'true', 'on', ' ON ']) expect(loadConfig({ GATE_EAGER_START: v }).eagerStart).toBe(true);
  });

  it('refuse a value that is not a switch, naming it', () => {
    expect(() => loadConfig({ GATE_EAGER_START: 'sometimes' })).toThrow('GATE_EAGER_START=sometimes');
  });
});
