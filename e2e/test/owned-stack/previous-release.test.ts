import { randomBytes } from 'node:crypto';
import { serviceSandbox, type ServiceSandbox } from '@community/test-harness';
import { killCommands, releaseWorktree, runCommand, tail } from '../../src/stack/release-worktree';
import { startOwnedStack, type AdminCredentials, type OwnedStack } from '../../src/stack/owned-stack';
import { REPO_ROOT } from '../../src/stack/service-process';

// DESIGN.md §16, issue 44: expand/contract. The previous release (CHANGELOG.md) runs on a database
// migrated by the current code and passes its own journeys; then the current services do on the
// same data. A migration that breaks the previous release's code fails here, and so does a queue
// redeclared with new arguments (the exchange and its queues are kept between the stacks).

const PREVIOUS_RELEASE = { version: 'v1.1.0', commit: 'dadb1df' };
const DATA_SERVICES = ['posts-service', 'users-service', 'webhook-service'];
// One SECRETS_KEY for every stack, as for one deployment: each must open the webhook secrets the
// one before it sealed.
const env = { SECRETS_KEY: randomBytes(32).toString('base64') };

let sandbox: ServiceSandbox | undefined;
let stack: OwnedStack | undefined;

afterAll(async () => {
  killCommands();
  await stack?.stop();
  await sandbox?.cleanup(DATA_SERVICES);
}, 60_000);

/** The sandbox for a stack to run on, which its stop() leaves for the next one. */
const lent = (given: ServiceSandbox): ServiceSandbox => ({ ...given, cleanup: async () => {} });

async function runOn(label: string, root: string, admin: AdminCredentials) {
  stack = await startOwnedStack(label, { root, sandbox: lent(sandbox!), admin, env });
  try {
    return await journeys(root, stack.baseUrl, admin);
  } finally {
    await stack.stop();
    stack = undefined;
  }
}

/** The journeys of the checkout at `root`, run as a black box against `baseUrl`. */
async function journeys(root: string, baseUrl: string, admin: AdminCredentials) {
  const started = Date.now();
  const result = await runCommand(
    'npx',
    ['jest', '--selectProjects', 'e2e', '--testPathPatterns', 'e2e/test/any-stack/journeys'],
    {
      cwd: root,
      // Only what the suite reads (e2e/src/settings.ts of both releases): nothing of this run's jest.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        FORCE_COLOR: '0',
        E2E_BASE_URL: baseUrl,
        E2E_ADMIN_USERNAME: admin.username,
        E2E_ADMIN_PASSWORD: admin.password,
        E2E_RECEIVER_HOST: '127.0.0.1',
        E2E_RECEIVER_BIND: '127.0.0.1',
      },
      timeoutMs: 150_000,
    },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  // Exit 0 with the journeys having run: a pattern that matched nothing would not count.
  const tests = Number(/^Tests:.*?(\d+) passed/m.exec(result.output)?.[1] ?? 0);
  const how = result.timedOut ? 'did not finish within 150 s' : `exited ${result.code}, ${tests} passed`;
  return {
    passed: result.code === 0 && tests > 0,
    summary: { seconds, tests },
    report: `journeys of ${root} ${how} after ${seconds} s:\n${tail(result.output)}`,
  };
}

it(`runs the previous release (${PREVIOUS_RELEASE.version}) and then this one on a database this one migrated`, async () => {
  const worktree = await releaseWorktree(PREVIOUS_RELEASE.commit, 240_000);
  sandbox = await serviceSandbox('e2e_previous_release');
  // The current services migrate the fresh database, and leave.
  stack = await startOwnedStack('current_migrates', { sandbox: lent(sandbox), env });
  const { admin } = stack;
  await stack.stop();
  stack = undefined;

  const previous = await runOn('previous_release', worktree, admin);
  if (!previous.passed)
    throw new Error(`${PREVIOUS_RELEASE.version} on the current schema: ${previous.report}`);
  const current = await runOn('current_after', REPO_ROOT, admin);
  if (!current.passed)
    throw new Error(`the current release after ${PREVIOUS_RELEASE.version}: ${current.report}`);
  process.stdout.write(
    `previous release: ${JSON.stringify({ previous: previous.summary, current: current.summary })}\n`,
  );
}, 600_000);
