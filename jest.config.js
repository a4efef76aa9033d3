// One jest run covers every workspace package; each package is a jest "project".
const path = require('node:path');

const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  moduleNameMapper: { '^@community/([a-z-]+)$': path.join(__dirname, 'libs/$1/src/index.ts') },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};

const packages = [
  'libs/config',
  'libs/logging',
  'libs/http-kit',
  'libs/db',
  'libs/events',
  'libs/contracts',
  'libs/test-harness',
  'libs/service-runtime',
  'posts-service',
  'users-service',
  'gateway',
  'webhook-service',
  'deploy',
];

module.exports = {
  globalSetup: '<rootDir>/libs/test-harness/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/test-harness/src/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 30000,
  projects: packages.map((dir) => ({ ...shared, displayName: dir, rootDir: path.join(__dirname, dir) })),
};
