import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FRAMEWORKS = [
  'ai',
  '@openai/agents-core',
  '@openai/agents',
  'langchain',
  '@langchain/core',
  '@langchain/langgraph',
];

/**
 * Loads one adapter in a fresh node process in which every framework except `allowed`
 * fails to resolve (as when it is not installed), and reports the modules it loaded.
 */
async function loadAlone(adapter: string, allowed: string[]): Promise<{ exports: string[]; temporal: boolean }> {
  const blocked = FRAMEWORKS.filter((f) => !allowed.includes(f));
  const code = `
    const Module = require('node:module');
    const blocked = ${JSON.stringify(blocked)};
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (blocked.some((b) => request === b || request.startsWith(b + '/'))) {
        const e = new Error('Cannot find module ' + request); e.code = 'MODULE_NOT_FOUND'; throw e;
      }
      return resolve.call(this, request, ...rest);
    };
    const m = require(${JSON.stringify(path.join(ROOT, 'src', 'adapters', adapter))});
    const temporal = Object.keys(require.cache).some((k) => k.includes('@temporalio'));
    process.stdout.write(JSON.stringify({ exports: Object.keys(m).sort(), temporal }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', code], { cwd: ROOT });
  return JSON.parse(stdout) as { exports: string[]; temporal: boolean };
}

describe('adapter subpaths', () => {
  it('loads approval-gate/ai-sdk with only the AI SDK installed, and no Temporal client', async () => {
    const r = await loadAlone('ai-sdk', ['ai']);
    expect(r.exports).toEqual(expect.arrayContaining(['approvalGate', 'httpGate', 'clientGate']));
    expect(r.temporal).toBe(false);
  });

  it('loads approval-gate/openai-agents with only @openai/agents-core installed, and no Temporal client', async () => {
    const r = await loadAlone('openai-agents', ['@openai/agents-core']);
    expect(r.exports).toEqual(expect.arrayContaining(['approvalGate', 'httpGate', 'clientGate']));
    expect(r.temporal).toBe(false);
  });

  it('loads approval-gate/langchain with only LangChain installed, and no Temporal client', async () => {
    const r = await loadAlone('langchain', ['langchain', '@langchain/core', '@langchain/langgraph']);
    expect(r.exports).toEqual(expect.arrayContaining(['approvalGateMiddleware', 'httpGate', 'clientGate']));
    expect(r.temporal).toBe(false);
  });

  it('fails to load approval-gate/ai-sdk when the AI SDK itself is missing (the check above blocks for real)', async () => {
    await expect(loadAlone('ai-sdk', [])).rejects.toThrow(
      /MissingPeerError: approval-gate\/ai-sdk needs ai, not installed here/,
    );
  });
});
