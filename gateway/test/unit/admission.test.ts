import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { OverloadedError } from '@community/contracts';
import { Admission } from '../../src/proxy/admission';
import { CallerGoneError } from '../../src/proxy/breaker';

// DESIGN.md §18: a bound on what a service is sent at once, a wait bound, and a limit that follows
// the service's latency. The queue's rules on fake timers; the whole path in
// test/integration/admission.test.ts.

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** A client's answer: only its `close` (the client gone) matters while it waits. */
const client = () => new EventEmitter() as unknown as ServerResponse;

/**
 * Records the order in which waiting requests are let through, and how each wait ended. `callers`:
 * who sends each request (all the same caller by default).
 */
function queue(admission: Admission, count: number, callers: string[] = []) {
  const outcomes: (string | Error)[] = Array(count).fill('waiting');
  const order: number[] = [];
  const clients = Array.from({ length: count }, client);
  clients.forEach((res, i) => {
    const waiting = admission.admit(res, callers[i]);
    if (!waiting) throw new Error(`request ${i} was admitted at once`);
    waiting.then(
      () => {
        outcomes[i] = 'admitted';
        order.push(i);
      },
      (err: Error) => (outcomes[i] = err),
    );
  });
  return { outcomes, order, clients };
}

const settle = () => jest.advanceTimersByTimeAsync(0);

describe('Admission with a fixed bound', () => {
  const fixed = () => new Admission({ name: 'posts', queueTimeoutMs: 200, maxInFlight: 2 });

  it('admits at once up to its bound and gives each freed slot to the oldest waiter', async () => {
    const admission = fixed();
    expect(admission.admit(client())).toBeUndefined();
    expect(admission.admit(client())).toBeUndefined();
    const { order } = queue(admission, 3);
    expect(admission.queued).toBe(3);

    admission.release(performance.now(), 5);
    admission.release(performance.now(), 5);
    await settle();
    expect(order).toEqual([0, 1]);
    admission.release(performance.now(), 5);
    await settle();
    expect(order).toEqual([0, 1, 2]);
    expect(admission).toMatchObject({ inFlight: 2, queued: 0, rejected: 0 });
  });

  it('gives freed slots to the waiting callers in turn: a caller with many waiting cannot starve one with few', async () => {
    const admission = fixed();
    admission.admit(client());
    admission.admit(client());
    // A heavy caller queues four, then a light one and a second heavy one queue one each.
    const { order, outcomes } = queue(admission, 7, [
      'heavy',
      'heavy',
      'heavy',
      'heavy',
      'light',
      'other',
      'heavy',
    ]);

    for (let i = 0; i < 4; i++) admission.release(performance.now(), 5);
    await settle();
    // One of each caller with a request waiting, in the order they first waited; then heavy again.
    expect(order).toEqual([0, 4, 5, 1]);
    await jest.advanceTimersByTimeAsync(200);
    // Under a lasting overload the refusals fall on the caller that sent the most.
    expect(outcomes.filter((o) => o instanceof OverloadedError)).toHaveLength(3);
    expect([2, 3, 6].every((i) => outcomes[i] instanceof OverloadedError)).toBe(true);
    expect(admission.queued).toBe(0);
  });

  it('serves a caller that had nothing waiting before the callers already in the round', async () => {
    const admission = fixed();
    admission.admit(client());
    admission.admit(client());
    const heavy = queue(admission, 4, ['heavy', 'heavy', 'other', 'other']);
    admission.release(performance.now(), 5);
    admission.release(performance.now(), 5);
    await settle();
    expect(heavy.order).toEqual([0, 2]);
    const light = queue(admission, 1, ['light']);
    admission.release(performance.now(), 5);
    await settle();
    expect(light.order).toEqual([0]);
    expect(heavy.order).toEqual([0, 2]);
  });

  it("refuses, once a caller's line has stood 100 ms, its request whose turn comes after 50 ms; admits a burst", async () => {
    const admission = new Admission({ name: 'posts', queueTimeoutMs: 200, maxInFlight: 1 });
    admission.admit(client());
    // A burst: the line has stood 80 ms when a slot frees, so its request is let in, late as it is.
    const burst = queue(admission, 1);
    await jest.advanceTimersByTimeAsync(80);
    admission.release(performance.now(), 5);
    await settle();
    expect(burst.outcomes).toEqual(['admitted']);

    // A caller's line that does not empty: by the next free slot it has stood 120 ms.
    const standing = queue(admission, 2);
    await jest.advanceTimersByTimeAsync(120);
    const fresh = queue(admission, 1);
    admission.release(performance.now(), 5);
    await settle();
    // Both that waited 120 ms are refused at once; its request that just came goes in.
    expect(standing.outcomes.every((o) => o instanceof OverloadedError)).toBe(true);
    expect(fresh.outcomes).toEqual(['admitted']);
    expect(admission).toMatchObject({ inFlight: 1, queued: 0, rejected: 2 });
  });

  it('does not refuse early a caller whose own line does not stand, beside one whose line does', async () => {
    const admission = new Admission({ name: 'posts', queueTimeoutMs: 200, maxInFlight: 1 });
    admission.admit(client());
    const heavy = queue(admission, 3, ['heavy', 'heavy', 'heavy']);
    await jest.advanceTimersByTimeAsync(60);
    const light = queue(admission, 1, ['light']);
    await jest.advanceTimersByTimeAsync(60);
    // Heavy's line has stood 120 ms, light's 60: light's request goes in, late as it is.
    admission.release(performance.now(), 5);
    await settle();
    expect(light.outcomes).toEqual(['admitted']);
    expect(heavy.outcomes[0]).toBeInstanceOf(OverloadedError);
    expect(heavy.outcomes.slice(1)).toEqual(['waiting', 'waiting']);
  });

  it('refuses a request that waited queueTimeoutMs with 503 overloaded, and takes it out of the line', async () => {
    const admission = fixed();
    admission.admit(client());
    admission.admit(client());
    const { outcomes } = queue(admission, 2);

    await jest.advanceTimersByTimeAsync(199);
    expect(outcomes).toEqual(['waiting', 'waiting']);
    await jest.advanceTimersByTimeAsync(1);
    expect(outcomes[0]).toBeInstanceOf(OverloadedError);
    expect(outcomes[0]).toMatchObject({ code: 'overloaded', retryAfterSeconds: 1 });
    expect(admission).toMatchObject({ inFlight: 2, queued: 0, rejected: 2 });

    // The refused hold no slot: the next request after a release goes in at once.
    admission.release(performance.now(), 5);
    expect(admission.admit(client())).toBeUndefined();
  });

  it('lets a client that leaves while it waits give up its place, uncounted', async () => {
    const admission = fixed();
    admission.admit(client());
    admission.admit(client());
    const { outcomes, order, clients } = queue(admission, 3);

    clients[0]!.emit('close');
    await settle();
    expect(outcomes[0]).toBeInstanceOf(CallerGoneError);
    expect(admission.queued).toBe(2);

    admission.release(performance.now(), 5);
    await settle();
    expect(order).toEqual([1]);
    await jest.advanceTimersByTimeAsync(200);
    expect(outcomes[2]).toBeInstanceOf(OverloadedError);
    expect(admission.rejected).toBe(1);
  });

  it('keeps its bound whatever the latency', () => {
    const admission = fixed();
    for (let i = 0; i < 100; i++) {
      admission.admit(client());
      admission.release(performance.now(), Infinity);
    }
    expect(admission.limit).toBe(2);
  });
});

describe('Admission without a fixed bound', () => {
  const adaptive = () => new Admission({ name: 'posts', queueTimeoutMs: 200 });

  /** As many requests as the bound, sent together and answered after `latencyMs` (Infinity: failed). */
  function round(admission: Admission, latencyMs: number) {
    jest.advanceTimersByTime(1);
    const sentAt = performance.now();
    const count = admission.limit;
    for (let i = 0; i < count; i++) admission.admit(client());
    for (let i = 0; i < count; i++) admission.release(sentAt, latencyMs);
  }

  it('grows by one per busy window of good answers, and not while little of it is used', () => {
    const admission = adaptive();
    const start = admission.limit;
    round(admission, 2);
    expect(admission.limit).toBe(start + 1);
    for (let i = 0; i < 10; i++) round(admission, 2);
    expect(admission.limit).toBe(start + 11);

    // One request at a time never makes the bound the constraint.
    for (let i = 0; i < 100; i++) {
      admission.admit(client());
      admission.release(performance.now(), 2);
    }
    expect(admission.limit).toBe(start + 11);
  });

  it('cuts in proportion to the latency over its baseline, judging only requests sent since the last change', () => {
    const admission = adaptive();
    round(admission, 2);
    const before = admission.limit;
    // Tolerated: 2 × 2 ms + 5 ms = 9 ms; a median of 12 ms cuts to 9/12 of the bound, once per round.
    round(admission, 12);
    expect(admission.limit).toBe(Math.floor(before * 0.75));
  });

  it('does not cut a bound that is not full: slow answers to a few requests refuse nobody', () => {
    const admission = adaptive();
    round(admission, 2);
    const before = admission.limit;
    for (let i = 0; i < 100; i++) {
      const sentAt = performance.now();
      for (let j = 0; j < 8; j++) admission.admit(client());
      for (let j = 0; j < 8; j++) admission.release(sentAt, 500);
    }
    expect(admission.limit).toBe(before);
  });

  it('at most halves per window, down to a floor of 4, and grows back after the slow spell', () => {
    const admission = adaptive();
    round(admission, 2);
    const before = admission.limit;
    round(admission, Infinity);
    expect(admission.limit).toBe(Math.floor(before / 2));
    for (let i = 0; i < 10; i++) round(admission, 500);
    expect(admission.limit).toBe(4);

    for (let i = 0; i < 200 && admission.limit < before; i++) round(admission, 2);
    expect(admission.limit).toBe(before);
  });

  it('follows a service that got slower for good, once its old baseline has aged out', () => {
    const admission = adaptive();
    round(admission, 2);
    for (let i = 0; i < 10; i++) round(admission, 50);
    expect(admission.limit).toBe(4);

    jest.advanceTimersByTime(20_000);
    for (let i = 0; i < 10; i++) round(admission, 50);
    jest.advanceTimersByTime(10_000);
    const floor = admission.limit;
    for (let i = 0; i < 20; i++) round(admission, 50);
    expect(admission.limit).toBeGreaterThan(floor);
  });
});
