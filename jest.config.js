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
// One run id (in every account and object the suite creates) and one fuzz seed per run, shared by
// every worker, which inherits this environment; both given back replay or clean up a run (e2e/README.md).
process.env.E2E_RUN_ID ||= `r${Date.now().toString(36)}`;
process.env.E2E_FUZZ_SEED ||= String(Math.floor(Math.random() * 2 ** 31));
const e2e = {
  ...shared,
  displayName: 'e2e',
  rootDir: path.join(__dirname, 'e2e'),
  // Failures end with the request ids of their last answers (e2e/src/reporting).
  testEnvironment: '<rootDir>/src/reporting/environment.ts',
  testMatch: external
    ? [
        '<rootDir>/test/any-stack/**/*.test.ts',
        ...(compose
          ? ['<rootDir>/test/compose-stack/**/*.test.ts', '<rootDir>/test/compose-rotation/**/*.test.ts']
          : []),
      ]
    : [
        '<rootDir>/test/any-stack/**/*.test.ts',
        '<rootDir>/test/owned-stack/**/*.test.ts',
        '<rootDir>/test/reporting/**/*.test.ts',
      ],
};
// Prints the run id and fuzz seed after e2e files ran; with E2E_REPORTS_DIR, writes JUnit XML and a summary.
const reporters = ['default', '<rootDir>/e2e/src/reporting/reporter.cjs'];

module.exports = external
  ? // A remote stack answers slower than loopback: more time per test than the local 30 s.
    {
      maxWorkers: 2,
      testTimeout: 90000,
      reporters,
      // E2E_CLEANUP=1: what the run created is deleted through the API when it ends.
      ...(process.env.E2E_CLEANUP === '1' ? { globalTeardown: '<rootDir>/e2e/src/cleanup/teardown.ts' } : {}),
      projects: [e2e],
    }
  : {
      globalSetup: '<rootDir>/libs/test-harness/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/test-harness/src/global-teardown.ts',
      maxWorkers: 2,
      testTimeout: 30000,
      reporters,
      projects: [
        ...packages.map((dir) => ({ ...shared, displayName: dir, rootDir: path.join(__dirname, dir) })),
        e2e,
      ],
    };
