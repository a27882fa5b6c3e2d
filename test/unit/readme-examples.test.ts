import fs from 'node:fs';
import path from 'node:path';

// README's "Use it from your own code" shows examples/library verbatim; the pack test runs those files.
const root = path.resolve(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const dir = path.join(root, 'examples', 'library');

describe('README "Use it from your own code"', () => {
  it.each(fs.readdirSync(dir))('shows examples/library/%s as it is run by the pack test', (file) => {
    const code = fs.readFileSync(path.join(dir, file), 'utf8').trimEnd();
    expect(readme).toContain('```ts\n' + code + '\n```');
  });
});
