import fs from 'node:fs';
import path from 'node:path';

// The README and docs/ show the files of examples/library and examples/adapters verbatim. The
// pack test runs the library files against the packed package;
// test/e2e/adapters/readme-examples.test.ts runs the adapter files. Each file names the pages
// that show it, so a snippet that drifts from its file, or a new file no page shows, fails here.
const root = path.resolve(__dirname, '..', '..');
const shownOn: Record<string, readonly string[]> = {
  'library/refund-workflows.ts': ['README.md', 'docs/library.md'],
  'library/refund-activities.ts': ['docs/library.md'],
  'library/refund-worker.ts': ['README.md', 'docs/library.md'],
  'library/refunds-domain.ts': ['docs/agent-runs.md'],
  'library/gate-server.ts': ['docs/agent-runs.md'],
  'adapters/payments.ts': ['docs/adapters/README.md'],
  'adapters/ai-sdk.ts': ['docs/adapters/ai-sdk.md'],
  'adapters/openai-agents.ts': ['docs/adapters/openai-agents.md'],
  'adapters/langchain.ts': ['docs/adapters/langchain.md'],
};
const examples = ['library', 'adapters'].flatMap((folder) =>
  fs.readdirSync(path.join(root, 'examples', folder)).map((file) => `${folder}/${file}`),
);
const shown = examples.flatMap((file) => (shownOn[file] ?? []).map((page) => [file, page] as const));

describe('the docs show examples/ as they are', () => {
  it('names the pages of every example file', () => {
    expect(examples.filter((file) => !Object.hasOwn(shownOn, file))).toEqual([]);
  });

  it.each(shown)('shows examples/%s in %s as the tests run it', (file, page) => {
    const code = fs.readFileSync(path.join(root, 'examples', file), 'utf8').trimEnd();
    const text = fs.readFileSync(path.join(root, page), 'utf8');
    expect(text).toContain('```ts\n' + code + '\n```');
  });
});
