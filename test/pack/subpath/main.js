// CommonJS: `require('approval-gate/<subpath>')`, as a CJS app loads it.
'use strict';

require('./use.js')(async (id) => require(id)).catch((err) => {
  console.error(err);
  process.exit(1);
});
