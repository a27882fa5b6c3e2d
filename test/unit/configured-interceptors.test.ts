import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configuredInterceptors } from '../../src/worker/configured-interceptors';

describe('the interceptors the gate processes add to their worker', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-interceptors-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('adds none when GATE_WORKER_INTERCEPTORS_MODULE is unset', () => {
    expect(configuredInterceptors({})).toBeUndefined();
  });

  it("adds the module's exported interceptors, its activity factories as written", () => {
    const file = path.join(dir, 'tracing.js');
    fs.writeFileSync(
      file,
      "exports.interceptors = { activity: [() => ({ inbound: { execute: (i, next) => next(i) } })] };\nexports.tag = 'mine';\n",
    );
    const found = configuredInterceptors({ GATE_WORKER_INTERCEPTORS_MODULE: file });
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the same module object the setting loaded
    expect(found).toBe((require(file) as { interceptors: unknown }).interceptors);
    expect(found?.activity).toHaveLength(1);
  });

  it('takes them from a default export too, as a compiled ES module gives them', () => {
    const file = path.join(dir, 'default.js');
    fs.writeFileSync(file, 'exports.default = { interceptors: { workflowModules: [] } };\n');
    expect(configuredInterceptors({ GATE_WORKER_INTERCEPTORS_MODULE: file })).toEqual({ workflowModules: [] });
  });

  it('refuses a module without an interceptors object, naming the variable', () => {
    const file = path.join(dir, 'empty.js');
    fs.writeFileSync(file, 'exports.interceptors = [];\n');
    expect(() => configuredInterceptors({ GATE_WORKER_INTERCEPTORS_MODULE: file })).toThrow(
      `GATE_WORKER_INTERCEPTORS_MODULE=${file} must export an "interceptors" object (WorkerInterceptors)`,
    );
  });
});
