/**
 * Builds the workflow bundle of an earlier commit, so a test can open gates on the code
 * that was deployed before a change and finish them on today's code:
 *
 *   npx tsx test/replay/bundle-commit.ts <commit>    # writes test/replay/bundles/<commit>.js.gz
 *
 * The bundles are checked in (a CI clone may be shallow and lack the commit). Build one
 * per workflow change that must keep open gates working, never rebuild an existing one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { bundleWorkflowCode } from '@temporalio/worker';

const ROOT = path.resolve(__dirname, '..', '..');
export const BUNDLES_DIR = path.join(__dirname, 'bundles');

/** The checked-in bundle of `commit`, unpacked to a temp file; its path. */
export function unpackBundle(commit: string): string {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'old-bundle-')), `${commit}.js`);
  fs.writeFileSync(out, zlib.gunzipSync(fs.readFileSync(path.join(BUNDLES_DIR, `${commit}.js.gz`))));
  return out;
}

async function main(): Promise<void> {
  const commit = process.argv[2];
  if (!commit) throw new Error('usage: bundle-commit.ts <commit>');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commit-src-'));
  try {
    const tar = execFileSync('git', ['archive', commit, 'src'], { cwd: ROOT, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(dir, 'src', 'workflows'),
      // The commit's sources live outside the project: resolve packages from the project.
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? []), path.join(ROOT, 'node_modules')] },
      }),
    });
    fs.mkdirSync(BUNDLES_DIR, { recursive: true });
    const target = path.join(BUNDLES_DIR, `${commit}.js.gz`);
    fs.writeFileSync(target, zlib.gzipSync(code, { level: 9 }));
    console.log(`${target}: ${code.length} bytes of code`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
