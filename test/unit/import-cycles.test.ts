import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// Lint's import-x/no-cycle (eslint.config.mjs) skips type-only imports by design; a cycle
// through them still shows two modules that each need the other. This counts every import,
// re-export and `import type` between the files of src/.

const SRC = path.resolve(__dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The src files `file` imports by a relative specifier, of any kind. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.resolve(path.dirname(file), s))
    .map((p) => [`${p}.ts`, path.join(p, 'index.ts'), p].find((c) => c.endsWith('.ts') && fs.existsSync(c)))
    .filter((p): p is string => p !== undefined);
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles in src', () => {
  it('finds the files that import each other in a ring, and only those', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('has none, type-only imports included', () => {
    const graph = new Map(sourceFiles(SRC).map((f) => [f, importsOf(f)]));
    expect(graph.size).toBeGreaterThan(100);
    const cycles = cyclesOf(graph).map((c) => c.map((f) => path.relative(SRC, f)));
    expect(cycles).toEqual([]);
  });
});
