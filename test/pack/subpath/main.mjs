// ES module: `import('approval-gate/<subpath>')`, as an ESM app loads it; the named exports
// must come through Node's CommonJS interop, since the package's build is CommonJS.
import { createRequire } from 'node:module';

const use = createRequire(import.meta.url)('./use.js');
use((id) => import(id)).catch((err) => {
  console.error(err);
  process.exit(1);
});
