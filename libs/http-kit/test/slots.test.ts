import { Slots, SlotsFull } from '@community/http-kit';

/** A piece of work that runs until told to finish. */
function held() {
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { work: () => done, finish, fail };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('runs at most `size` at once, the rest in arrival order as slots free up', async () => {
  const slots = new Slots({ size: 2 });
  const started: number[] = [];
  const works = Array.from({ length: 5 }, () => held());
  const runs = works.map((w, i) =>
    slots.run(`caller-${i}`, () => {
      started.push(i);
      return w.work();
    }),
  );
  await tick();
  expect([started, slots.load]).toEqual([[0, 1], { running: 2, waiting: 3 }]);
  works[1]!.finish();
  await tick();
  expect(started).toEqual([0, 1, 2]);
  // A failure frees its slot too, and reaches its own caller only.
  works[0]!.fail(new Error('boom'));
  await expect(runs[0]).rejects.toThrow('boom');
  await tick();
  expect(started).toEqual([0, 1, 2, 3]);
  for (const w of works) w.finish();
  await Promise.all(runs.slice(1));
  expect(slots.load).toEqual({ running: 0, waiting: 0 });
});

it('refuses at once when the queue is full or the caller has its share in use', async () => {
  const slots = new Slots({ size: 1, queue: 1, perCaller: 2 });
  const first = held();
  const running = slots.run('a', first.work);
  const waiting = slots.run('b', first.work);
  await expect(slots.run('c', first.work)).rejects.toEqual(new SlotsFull('queue'));
  first.finish();
  await Promise.all([running, waiting]);

  const second = held();
  const mine = [slots.run('a', second.work), slots.run('a', second.work)];
  await expect(slots.run('a', second.work)).rejects.toEqual(new SlotsFull('caller'));
  second.finish();
  await Promise.all(mine);
  // Shares are given back as work ends.
  await expect(slots.run('a', async () => 'again')).resolves.toBe('again');
});

it('refuses work that waited `maxWaitMs` for a slot, and the slot goes to the next in line', async () => {
  const slots = new Slots({ size: 1, maxWaitMs: 50 });
  const first = held();
  const running = slots.run('a', first.work);
  const late = slots.run('b', async () => 'never');
  await expect(late).rejects.toEqual(new SlotsFull('wait'));
  expect(slots.load).toEqual({ running: 1, waiting: 0 });
  const next = slots.run('c', async () => 'next');
  first.finish();
  await running;
  await expect(next).resolves.toBe('next');
  expect(slots.load).toEqual({ running: 0, waiting: 0 });
});
