import fs from 'node:fs';
import path from 'node:path';
import { ApprovalGateError } from '../../src/common/errors';
import { ERROR_CLASSES, SRC, loadErrorClasses } from '../support/error-classes';
import pkg from '../../package.json';

/** Every `.ts` file under src/, relative to it. */
function sources(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return sources(full);
    return d.name.endsWith('.ts') ? [path.relative(SRC, full)] : [];
  });
}

/** `class X extends Y` (declarations and named expressions) in every source file. */
function classDeclarations(): { file: string; name: string; base: string }[] {
  return sources().flatMap((file) =>
    [...fs.readFileSync(path.join(SRC, file), 'utf8').matchAll(/\bclass\s+(\w+)\s+extends\s+([\w.]+)/g)].map((m) => ({
      file,
      name: m[1]!,
      base: m[2]!,
    })),
  );
}

const BUILTIN_ERRORS = /^(Aggregate|Eval|Range|Reference|Syntax|Type|URI)?Error$/;
const known = new Map(ERROR_CLASSES.map((r) => [r.name, r]));

describe('one error tree', () => {
  it('has no class outside src/common/errors.ts that extends Error itself', () => {
    const direct = classDeclarations().filter((c) => BUILTIN_ERRORS.test(c.base) && c.file !== 'common/errors.ts');
    expect(direct).toEqual([]);
  });

  it('lists every error class of src/ in the test table, in the module that declares it', () => {
    const declared = classDeclarations();
    // Error classes: those whose base is one, followed to a fixed point.
    const errors = new Set(['ApprovalGateError']);
    for (let grew = true; grew;) {
      grew = false;
      for (const c of declared) {
        if (!errors.has(c.name) && (errors.has(c.base) || BUILTIN_ERRORS.test(c.base))) {
          errors.add(c.name);
          grew = true;
        }
      }
    }
    const found = declared
      .filter((c) => errors.has(c.name) && c.name !== 'ApprovalGateError')
      .map((c) => ({ name: c.name, module: c.file.replace(/\.ts$/, '') }));
    const table = ERROR_CLASSES.map((r) => ({ name: r.name, module: r.module }));
    const byName = (x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name);
    expect(found.sort(byName)).toEqual(table.sort(byName));
  });

  const entries = Object.entries(pkg.exports as Record<string, string | { default: string }>).flatMap(
    ([entry, target]) =>
      typeof target === 'object' ? [[entry, target.default.replace(/^\.\/dist\/src\/(.*)\.js$/, '$1')] as const] : [],
  );

  it.each(entries)('has every error class that %s exports in the tree, as the class of its own module', (_e, mod) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- entry modules come from package.json
    const exported = require(path.join(SRC, mod)) as Record<string, unknown>;
    const classes = loadErrorClasses();
    for (const [name, value] of Object.entries(exported)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
      expect([name, name === 'ApprovalGateError' || known.has(name)]).toEqual([name, true]);
      expect([name, value === classes[name]]).toEqual([name, true]);
      expect([name, value.prototype instanceof ApprovalGateError]).toEqual([name, true]);
    }
  });

  const groups = ['ApprovalGateError', 'ConfigurationError', 'RefusedError', 'UnavailableError'];
  it.each(entries.filter(([e]) => e !== './workflow'))('exports the root and the groups from %s', (_e, mod) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- entry modules come from package.json
    const exported = require(path.join(SRC, mod)) as Record<string, unknown>;
    expect(groups.filter((g) => typeof exported[g] !== 'function')).toEqual([]);
  });

  it.each([['.'], ['./worker']])('exports the tool and model groups from %s', (entry) => {
    const mod = entries.find(([e]) => e === entry)![1];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- entry modules come from package.json
    const exported = require(path.join(SRC, mod)) as Record<string, unknown>;
    expect(['DomainToolError', 'isDomainToolError', 'ModelError'].filter((g) => !exported[g])).toEqual([]);
  });
});
