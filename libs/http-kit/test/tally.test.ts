import { Registry } from 'prom-client';
import { Tally } from '../src/tally';

const HIT = Object.freeze({ result: 'hit' });
const MISS = Object.freeze({ result: 'miss' });

async function values(registry: Registry) {
  const metric = await registry.getSingleMetric('test_lookups_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [v.labels.result, v.value]));
}

describe('a tally', () => {
  it('shows its counts at each scrape, by labels, none counted twice', async () => {
    const registry = new Registry();
    const tally = new Tally({ name: 'test_lookups_total', help: 'test', labelNames: ['result'], registry });
    for (let i = 0; i < 3; i++) tally.inc(HIT);
    tally.inc(MISS);
    expect(await values(registry)).toEqual({ hit: 3, miss: 1 });
    expect(await registry.metrics()).toContain('test_lookups_total{result="hit"} 3');
    tally.inc(HIT);
    // Counts since the last scrape are added to what was shown, never again what was added before.
    expect(await values(registry)).toEqual({ hit: 4, miss: 1 });
    expect(await values(registry)).toEqual({ hit: 4, miss: 1 });
  });

  it('counts equal labels in separate objects under one series', async () => {
    const registry = new Registry();
    const tally = new Tally({ name: 'test_lookups_total', help: 'test', labelNames: ['result'], registry });
    tally.inc({ result: 'hit' });
    tally.inc({ result: 'hit' });
    expect(await values(registry)).toEqual({ hit: 2 });
  });
});
