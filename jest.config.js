// One jest run covers every workspace package; each package is a jest "project".
const path = require('node:path');

// ESM-only test dependencies jest must compile to CommonJS (jest 30 on Node 20 cannot require ESM).
const ESM_PACKAGES = ['oauth4webapi'];

const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
    [`/node_modules/(?:${ESM_PACKAGES.join('|')})/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(?:${ESM_PACKAGES.join('|')})/)`],
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
  'libs/access',
  'libs/openapi',
  'libs/test-harness',
  'libs/service-runtime',
  'libs/telemetry',
  'libs/workarounds',
  'libs/sdk',
  'posts-service',
  'users-service',
  'gateway',
  'webhook-service',
  'deploy',
];

// The black-box suite (e2e/): with E2E_BASE_URL it targets a running stack, so only the files that
// apply to a stack it does not own run, and no local infrastructure is looked for. With
// E2E_COMPOSE_PROJECT too (`npm run test:containers`), the compose stack's own checks run as well.
const external = Boolean(process.env.E2E_BASE_URL);
const compose = external && Boolean(process.env.E2E_COMPOSE_PROJECT);
const e2e = {
  ...shared,
  displayName: 'e2e',
  rootDir: path.join(__dirname, 'e2e'),
  testMatch: external
    ? [
        '<rootDir>/test/any-stack/**/*.test.ts',
        ...(compose ? ['<rootDir>/test/compose-stack/**/*.test.ts'] : []),
      ]
    : ['<rootDir>/test/any-stack/**/*.test.ts', '<rootDir>/test/owned-stack/**/*.test.ts'],
};

module.exports = external
  ? // A remote stack answers slower than loopback: more time per test than the local 30 s.
    { maxWorkers: 2, testTimeout: 90000, projects: [e2e] }
  : {
      globalSetup: '<rootDir>/libs/test-harness/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/test-harness/src/global-teardown.ts',
      maxWorkers: 2,
      testTimeout: 30000,
      projects: [
        ...packages.map((dir) => ({ ...shared, displayName: dir, rootDir: path.join(__dirname, dir) })),
        e2e,
      ],
    };
