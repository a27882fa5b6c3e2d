import fs from 'node:fs';
import path from 'node:path';

// README shows examples/library ("Use it from your own code") and examples/adapters
// ("Framework adapters") verbatim. The pack test runs the library files against the
// packed package; test/e2e/adapters/readme-examples.test.ts runs the adapter files.
const root = path.resolve(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

describe.each(['library', 'adapters'])('README shows examples/%s', (folder) => {
  const dir = path.join(root, 'examples', folder);
  it.each(fs.readdirSync(dir))('shows %s as it is, as the tests run it', (file) => {
    const code = fs.readFileSync(path.join(dir, file), 'utf8').trimEnd();
    expect(readme).toContain('```ts\n' + code + '\n```');
  });
});
