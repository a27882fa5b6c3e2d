// The reviewer page's files (HTML, CSS, browser JavaScript) beside the compiled server,
// where src/api/reviewer-page.ts reads them at start-up: tsc copies no such files.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const from = path.join(root, 'src', 'api', 'page');
const to = path.join(root, 'dist', 'src', 'api', 'page');
fs.mkdirSync(to, { recursive: true });
for (const name of fs.readdirSync(from))
  if (/\.(html|css|js)$/.test(name)) fs.copyFileSync(path.join(from, name), path.join(to, name));
