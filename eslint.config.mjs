// Lint: typescript-eslint's recommended rules with the type-aware promise rules, plus the sandbox rules from Temporal's
// samples: workflow code and the pure core import no Node built-ins (and the core no Temporal),
// and workflow code imports activities, stores, domains and models as types only; no import
// cycles in src (import-x/no-cycle; test/unit/import-cycles.test.ts also counts type-only imports).
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** Modules whose values must never reach a workflow bundle (their types may). */
const workflowValueBans = [
  '**/activities',
  '**/activities/*',
  '**/store/*',
  '**/domain/*',
  '**/domain/**',
  '**/models/*',
];

export default tseslint.config(
  // The reviewer page's browser scripts are the only JavaScript files linted (and type-checked by its own tsconfig).
  {
    ignores: [
      'dist/**',
      'test/pack/project/**',
      'node_modules/**',
      '.tools/**',
      'bin/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '!src/api/page/*.js',
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  {
    // The page's scripts run as one classic script (src/api/reviewer-page.ts inlines them in
    // order): top-level names are globals shared across the files, which tsc checks as such.
    files: ['src/api/page/*.js'],
    languageOptions: { sourceType: 'script' },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { vars: 'local', argsIgnorePattern: '^_' }] },
  },
  {
    files: ['src/workflow/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins,
          patterns: [
            { group: ['../store/*', '../api/*', '../client/*'], message: 'workflow code cannot reach I/O layers' },
            {
              group: workflowValueBans,
              allowTypeImports: true,
              message: 'workflow code may import these as types only',
            },
          ],
        },
      ],
    },
  },
  {
    // One error tree: a new error class extends a group of src/common/errors.ts (docs/errors.md), never Error itself.
    files: ['src/**/*.ts'],
    ignores: ['src/common/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(ClassDeclaration, ClassExpression)[superClass.name=/^(Aggregate|Eval|Range|Reference|Syntax|Type|URI)?Error$/]',
          message:
            'extend a group of src/common/errors.ts (ConfigurationError, RefusedError, UnavailableError, DomainToolError, ModelError) and brand it with brandErrorClass',
        },
      ],
    },
  },
  {
    // A cycle shows a layering problem: move what both sides need into a module of its own.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: import.meta.dirname })],
    },
    // Packages are not followed: a cycle among them is not ours, and parsing them was most of the rule's cost.
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Pure logic: src/common, src/policy (but for the one file that reads a rule file from disk)
    // and src/notify (message rendering and the notification settings).
    files: ['src/common/**/*.ts', 'src/policy/**/*.ts', 'src/notify/**/*.ts'],
    ignores: ['src/policy/load-file.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: nodeBuiltins, patterns: ['@temporalio/*'] }] },
  },
);
