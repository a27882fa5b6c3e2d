/**
 * The production suite (`npm run test:production`): one `gate stack` (PostgreSQL, a real
 * Temporal server, two worker processes, the API) for every file, which run one at a time
 * in a fixed order (sequencer.js): the reused e2e API files first, the outage and chaos
 * files, which stop processes, last.
 */
const path = require('node:path');

module.exports = {
  rootDir: path.resolve(__dirname, '..', '..'),
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: [
    '<rootDir>/test/production/**/*.test.ts',
    // Written against an in-process API; with GATE_STACK_TARGET set they drive the stack.
    '<rootDir>/test/e2e/api-lifecycle.test.ts',
    '<rootDir>/test/e2e/api-idempotency.test.ts',
    '<rootDir>/test/e2e/api-concurrency.test.ts',
    '<rootDir>/test/e2e/api-bad-input.test.ts',
    '<rootDir>/test/e2e/api-runs.test.ts',
  ],
  // examples import the package by name, as an app does.
  moduleNameMapper: {
    '^approval-gate$': '<rootDir>/src',
    '^approval-gate/(worker|workflow|client|webhooks|api)$': '<rootDir>/src/$1',
    '^approval-gate/(ai-sdk|openai-agents|langchain)$': '<rootDir>/src/adapters/$1',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // As in jest.config.js: the CEL library ships ES modules only, which jest's module system does not load.
    '/node_modules/@marcbachmann/cel-js/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  globalSetup: '<rootDir>/test/production/global-setup.ts',
  globalTeardown: '<rootDir>/test/production/global-teardown.ts',
  testSequencer: '<rootDir>/test/production/sequencer.js',
  testTimeout: 180000,
  maxWorkers: 1,
};
