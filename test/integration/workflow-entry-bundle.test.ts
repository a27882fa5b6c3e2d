import { bundleWorkflowCode } from '@temporalio/worker';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** The paths of the modules webpack put in a bundle (its module ids are their paths). */
function modulePaths(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1]!);
}

describe('approval-gate/workflow in a workflow bundle', () => {
  it('bundles without a Node built-in, a store, the API or a model', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflow'), logger: quiet });
    const paths = modulePaths(code);
    expect(paths.some((p) => p.includes('src/workflow/require-approval'))).toBe(true);
    const forbidden = paths.filter((p) =>
      /better-sqlite3|node_modules\/(pg|fastify|pino)\/|src\/(store|api|activities|models|client|domain)\/|@temporalio\/(client|worker)\//.test(
        p,
      ),
    );
    expect(forbidden).toEqual([]);
  });

  it('refuses a workflows module that imports a Node built-in (the control: the check above can fail)', async () => {
    const errors: string[] = [];
    const logger = { ...quiet, error: (m: string) => void errors.push(m), warn: (m: string) => void errors.push(m) };
    await expect(
      bundleWorkflowCode({ workflowsPath: require.resolve('../fixtures/bundle/node-import'), logger }),
    ).rejects.toThrow(/Webpack finished with errors/);
    expect(errors.join('\n')).toMatch(/node:fs/);
  });
});
