/** One server for the whole suite: globalSetup starts a Temporal dev server and bundles the workflows once. */
module.exports = {
  testEnvironment: 'node',
  // bench/test: the benchmark's own unit tests, beside the code they test.
  roots: ['<rootDir>/test', '<rootDir>/bench'],
  testMatch: ['**/*.test.ts'],
  // The production suite runs on its own stack: `npm run test:production` (test/production/jest.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/production/'],
  // examples import the package by name, as an app does.
  moduleNameMapper: {
    '^approval-gate$': '<rootDir>/src',
    '^approval-gate/(worker|workflow|client|webhooks|api)$': '<rootDir>/src/$1',
    '^approval-gate/(ai-sdk|openai-agents|langchain)$': '<rootDir>/src/adapters/$1',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // The CEL library ships ES modules only; Node 20.19+ requires them natively, jest's module system does not.
    '/node_modules/@marcbachmann/cel-js/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120000,
  maxWorkers: 2,
  // A fresh process for every test file: a gRPC retry a finished file left scheduled (its
  // connection closed in afterAll) must not throw "Channel has been shut down" into the next
  // file's test. A limit below any real worker's size restarts the worker after each file.
  workerIdleMemoryLimit: '1MB',
};
