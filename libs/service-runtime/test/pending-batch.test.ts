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

  it('never lets a read see a batch that is neither pending nor written', async () => {
    // A store that writes slowly: the batch is out of memory well before it is in the store.
    let stored = 0;
    let finishWrite = () => {};
    const batch = new PendingBatch<string, number>({
      merge: (a, b) => a + b,
      write: (values) =>
        new Promise<void>((resolve) => {
          finishWrite = () => {
            stored += values.get('a') ?? 0;
            resolve();
          };
        }),
      intervalMs: 60_000,
      logger,
      what: 'counts',
    });
    batch.add('a', 5);
    const total = () => batch.whole(async () => stored + (batch.peek('a') ?? 0));
    expect(await total()).toBe(5);
    const flushed = batch.flush();
    await Promise.resolve();
    // Without waiting, this read would be 0 + nothing pending: 0.
    const during = total();
    setTimeout(() => finishWrite(), 20);
    expect(await during).toBe(5);
    await flushed;

    // A flush that starts while a read is under way makes that read run again.
    batch.add('a', 1);
    let reads = 0;
    const overlapped = batch.whole(async () => {
      reads++;
      const written = stored;
      if (reads === 1) {
        void batch.flush();
        await new Promise((resolve) => setTimeout(resolve, 5));
        finishWrite();
      }
      return written + (batch.peek('a') ?? 0);
    });
    expect(await overlapped).toBe(6);
    expect(reads).toBe(2);
  });
});
