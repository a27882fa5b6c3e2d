import { preloadModules, workflowBundlerOptions } from '../../src/worker/bundle-options';
import { loadConfig } from '../../src/config';

describe('workflow stack traces (GATE_WORKFLOW_STACK_TRACES)', () => {
  it('are off unless the variable turns them on, and a malformed value is refused by name', () => {
    expect(loadConfig({}).workflowStackTraces).toBe(false);
    for (const v of ['0', 'false', 'off', ' OFF ', ''])
      expect(loadConfig({ GATE_WORKFLOW_STACK_TRACES: v }).workflowStackTraces).toBe(false);
    for (const v of ['1', 'true', 'on', 'On'])
      expect(loadConfig({ GATE_WORKFLOW_STACK_TRACES: v }).workflowStackTraces).toBe(true);
    expect(() => loadConfig({ GATE_WORKFLOW_STACK_TRACES: 'yes please' })).toThrow(
      /GATE_WORKFLOW_STACK_TRACES=yes please/,
    );
  });

  it("preload the frame limit in the gate's own bundles only while they are off; the plugin's preload never has it", () => {
    const off = workflowBundlerOptions().preloadModules;
    const on = workflowBundlerOptions({ stackTraces: true }).preloadModules;
    expect(off.some((m) => /stack-frames\.ts$/.test(m))).toBe(true);
    expect(on.some((m) => /stack-frames/.test(m))).toBe(false);
    expect(on).toEqual(preloadModules()); // the shared libraries, as approvalGatePlugin preloads them
    expect(preloadModules().some((m) => /stack-frames/.test(m))).toBe(false);
  });
});
