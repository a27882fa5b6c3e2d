#!/usr/bin/env node
'use strict';
// `gate` entry point: the compiled CLI when `npm run build` produced it, else the
// TypeScript source through tsx, so `npx gate …` works both built and from a checkout.
const fs = require('node:fs');
const path = require('node:path');

const built = path.join(__dirname, '..', 'dist', 'src', 'cli', 'index.js');
// GATE_CLI_FROM_SOURCE=1 forces the source, so a stale dist/ never shadows a checkout under test.
if (fs.existsSync(built) && process.env.GATE_CLI_FROM_SOURCE !== '1') {
  require(built).run();
} else {
  require('tsx/cjs');
  require(path.join(__dirname, '..', 'src', 'cli', 'index.ts')).run();
}
