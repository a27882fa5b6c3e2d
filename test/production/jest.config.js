/**
 * The production suite (`npm run test:production`): one `gate stack` (PostgreSQL, a real
 * Temporal server, two worker processes, the API) for every file, which run one at a time
 * in a fixed order (sequencer.js): the reused e2e API files first, the outage and chaos
 * files, which stop processes, last.
 */
const path = require('node:path');
const base = require('../../jest.config.js');

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
  // As the main suite resolves and transforms modules (the package by name, the CEL library's ES modules).
  moduleNameMapper: base.moduleNameMapper,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  globalSetup: '<rootDir>/test/production/global-setup.ts',
  globalTeardown: '<rootDir>/test/production/global-teardown.ts',
  testSequencer: '<rootDir>/test/production/sequencer.js',
  testTimeout: 180000,
  maxWorkers: 1,
};
