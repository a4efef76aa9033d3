import { redisPrefix, testExchange, testInfra, uniqueName } from '../src';

describe('testInfra', () => {
  it('sees the run id and service URLs that global setup exported to this worker', () => {
    const infra = testInfra();

    expect(infra.runId).toMatch(/^[a-z0-9]{8}$/);
    expect(infra.pgUrl).toMatch(/^postgres(ql)?:\/\//);
    expect(infra.redisUrl).toMatch(/^rediss?:\/\//);
    expect(infra.amqpUrl).toMatch(/^amqps?:\/\//);
  });
});

describe('uniqueName', () => {
  it('never repeats within a file and is always lowercase [a-z0-9_] of at most 50 characters', () => {
    const names = Array.from({ length: 2000 }, (_, i) => uniqueName(i % 2 ? 'orders' : 'Orders'));

    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9_]+$/);
      expect(name.length).toBeLessThanOrEqual(50);
    }
  });

  it('starts with the run id and keeps a sanitised label', () => {
    const name = uniqueName('  Posts Service / Ünïcode!! ');

    expect(name.startsWith(`${testInfra().runId}_posts_service_n_code_`)).toBe(true);
  });

  it('stays within 50 characters however long the label', () => {
    const name = uniqueName('a-very-long-label-that-would-never-fit-in-a-postgres-identifier-'.repeat(4));

    expect(name.length).toBeLessThanOrEqual(50);
    expect(name).toMatch(/^[a-z0-9_]+$/);
  });

  it('still gives a usable name for a label with nothing usable in it', () => {
    expect(uniqueName('***')).toMatch(/^[a-z0-9]+_x_[a-z0-9_]+$/);
  });
});

describe('testExchange and redisPrefix', () => {
  it('are unique and live under the run namespace', () => {
    const { runId } = testInfra();
    const exchanges = [testExchange('events'), testExchange('events')];
    const prefixes = [redisPrefix('limits'), redisPrefix('limits')];

    expect(exchanges[0]).toMatch(new RegExp(`^test\\.${runId}\\.events\\.[a-z0-9_]+$`));
    expect(prefixes[0]).toMatch(new RegExp(`^test:${runId}:limits:[a-z0-9_]+:$`));
    expect(exchanges[0]).not.toBe(exchanges[1]);
    expect(prefixes[0]).not.toBe(prefixes[1]);
  });
});
