import fs from 'node:fs';
import path from 'node:path';

/** The package's own version, from the nearest package.json above this file (src/ and dist/src/ alike). */
export function packageVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file))
      return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version);
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
