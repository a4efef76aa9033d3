import { freePort } from '../src';
import { locateService } from '../src/setup/locate';
import { SERVICES } from '../src/setup/services';
import type { ServiceSpec } from '../src/setup/services';

// Global setup itself runs before any test, so these drive its per-service search directly,
// with a spec whose environment variables are unset and whose local default is a dead port.
async function specWithDeadLocalPort(overrides: Partial<ServiceSpec> = {}): Promise<ServiceSpec> {
  const redis = SERVICES.find((spec) => spec.key === 'redisUrl');
  if (!redis) throw new Error('no Redis spec');
  return {
    ...redis,
    envVars: ['TEST_HARNESS_UNSET_URL', 'TEST_HARNESS_UNSET_FALLBACK_URL'],
    localUrl: `redis://127.0.0.1:${await freePort()}`,
    ...overrides,
  };
}

const noDocker = () => Promise.resolve(false);

describe('locateService', () => {
  it('uses the local default when it answers', async () => {
    const spec = await specWithDeadLocalPort({ localUrl: process.env.TEST_REDIS_URL ?? '' });

    await expect(locateService(spec, noDocker)).resolves.toEqual({ url: process.env.TEST_REDIS_URL });
  });

  it('says in one sentence how to start a service that is down when there is no Docker engine', async () => {
    const spec = await specWithDeadLocalPort();

    await expect(locateService(spec, noDocker)).rejects.toThrow(
      new Error(
        `Redis is not reachable at ${spec.localUrl} and no Docker engine is available for testcontainers: ` +
          `start it with "${spec.startCommand}" or set TEST_HARNESS_UNSET_URL.`,
      ),
    );
  });

  it('reports a testcontainer that fails to start instead of hanging', async () => {
    const spec = await specWithDeadLocalPort({
      startContainer: () => Promise.reject(new Error('pull denied')),
    });
    const stderr = jest.spyOn(process.stderr, 'write').mockReturnValue(true); // its "starting a testcontainer" note

    await expect(locateService(spec, () => Promise.resolve(true))).rejects.toThrow(
      /^Redis is not reachable at .* and its testcontainer failed to start \(pull denied\): start it with/,
    );
    stderr.mockRestore();
  });

  it('does not fall back when a configured URL is down, and hides its password', async () => {
    const port = await freePort();
    process.env.TEST_HARNESS_UNSET_URL = `redis://:hunter2@127.0.0.1:${port}`;
    try {
      const spec = await specWithDeadLocalPort({ localUrl: process.env.TEST_REDIS_URL ?? '' });

      await expect(locateService(spec, noDocker)).rejects.toThrow(
        `Redis is not reachable at redis://:***@127.0.0.1:${port} (from TEST_HARNESS_UNSET_URL): start it or fix TEST_HARNESS_UNSET_URL.`,
      );
    } finally {
      delete process.env.TEST_HARNESS_UNSET_URL;
    }
  });
});
