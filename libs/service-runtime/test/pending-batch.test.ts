import { createLogger } from '@community/logging';
import { PendingBatch } from '@community/service-runtime';

const logger = createLogger({ service: 'pending-batch-test', level: 'silent' });

describe('PendingBatch', () => {
  it('merges values per key and writes them in one batch', async () => {
    const written: Map<string, number>[] = [];
    const batch = new PendingBatch<string, number>({
      merge: (a, b) => a + b,
      write: async (values) => void written.push(values),
      intervalMs: 60_000,
      logger,
      what: 'counts',
    });
    expect(batch.add('a', 1)).toBe(1);
    expect(batch.add('a', 2)).toBe(3);
    batch.add('b', 5);
    await batch.flush();
    await batch.flush();
    expect(written).toEqual([
      new Map([
        ['a', 3],
        ['b', 5],
      ]),
    ]);
  });

  it('puts a failed batch back, merged with what arrived meanwhile', async () => {
    let fail = true;
    const written: Map<string, number>[] = [];
    const batch = new PendingBatch<string, number>({
      merge: (a, b) => a + b,
      write: async (values) => {
        if (fail) throw new Error('database away');
        written.push(values);
      },
      intervalMs: 60_000,
      logger,
      what: 'counts',
    });
    batch.add('a', 2);
    await batch.flush();
    batch.add('a', 1);
    fail = false;
    await batch.stop();
    expect(written).toEqual([new Map([['a', 3]])]);
  });
});
