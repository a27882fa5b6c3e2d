// Lint: typescript-eslint's recommended rules, plus the sandbox rule from Temporal's
// samples: workflow code and the pure core import no Node built-ins (and the core no Temporal).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', 'bin/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: nodeBuiltins, patterns: ['../store/*', '../api/*', '../client/*'] }] },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: nodeBuiltins, patterns: ['@temporalio/*'] }] },
  },
);
