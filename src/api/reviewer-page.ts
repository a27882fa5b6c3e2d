import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The reviewer page: `page/reviewer.html` with `page/reviewer.css` and the scripts of
 * PAGE_SCRIPTS inlined. The scripts and style are ordinary files (the scripts type-checked
 * by `page/tsconfig.json` and linted); they are read once when the server starts, and the
 * CSP names their SHA-256, so nothing but these exact bytes may run or style the page.
 * Inlining keeps `default-src 'none'`: the page loads nothing, not even from its own origin.
 */
export interface ReviewerPage {
  html: string;
  csp: string;
}

/** Where the page's files are: beside this module in a checkout and in `dist/` alike (the build copies them). */
export const PAGE_DIR = path.join(__dirname, 'page');

/**
 * The page's scripts, in the order they run as one script: plain browser scripts sharing
 * one global scope (no modules: a module would have to be loaded from a URL), the helpers
 * first and the start-up last.
 */
export const PAGE_SCRIPTS = [
  'format.js',
  'api.js',
  'dom.js',
  'queue.js',
  'detail.js',
  'decide.js',
  'bulk.js',
  'reviewer.js',
] as const;

/** Where the script and the style go (the formatter may indent the placeholders). */
const SCRIPT_SLOT = /<script>\s*\/\*SCRIPT\*\/\s*<\/script>/;
const STYLE_SLOT = /<style>\s*\/\*STYLE\*\/\s*<\/style>/;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

/** Reads and hashes the page's files; throws, naming the file, when one is missing. */
export function loadReviewerPage(dir = PAGE_DIR): ReviewerPage {
  const read = (name: string): string => fs.readFileSync(path.join(dir, name), 'utf8');
  const script = PAGE_SCRIPTS.map((name) => `// ---- ${name}\n${read(name)}`).join('\n');
  const style = read('reviewer.css');
  const template = read('reviewer.html');
  if (!SCRIPT_SLOT.test(template) || !STYLE_SLOT.test(template))
    throw new Error(
      `${path.join(dir, 'reviewer.html')} lacks its <script>/*SCRIPT*/</script> or <style>/*STYLE*/</style>`,
    );
  // `</script` inside the script would end the element early; the file is ours, but check anyway.
  if (/<\/script/i.test(script) || /<\/style/i.test(style)) throw new Error('page script or style closes its own tag');
  const html = template
    .replace(SCRIPT_SLOT, () => `<script>${script}</script>`)
    .replace(STYLE_SLOT, () => `<style>${style}</style>`);
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${sha256(script)}'`,
    `style-src 'sha256-${sha256(style)}'`,
    "connect-src 'self'",
    "img-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return { html, csp };
}
