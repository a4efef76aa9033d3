import { createHook } from 'node:async_hooks';

/** The tick object kept for the life of the process (see {@link keepTickObjectShape}). */
let kept: object | undefined;

/**
 * Keeps one `process.nextTick` tick object alive for the life of the process, so that the hidden
 * classes ("maps") of every later one stay alive too — and node's stream and HTTP code stays fast
 * after the process has been idle.
 *
 * Why: Node 20 builds each tick object with an object literal of computed keys, and V8 remembers
 * weakly the map each key is added to. The memory-reducing collection of an idle spell keeps no map
 * that no live object has; with no tick object alive then, V8 marks those sites megamorphic for good
 * and every later tick object is built key by key in its runtime. bench/RESULTS.md, "node's tick
 * objects turned megamorphic after an idle spell, kept monomorphic". A kept tick object holds its
 * map and, through it, the maps it was built through. Canary: test/tick-shape.test.ts.
 *
 * The object is caught with an async hook enabled for the one tick it takes and disabled at once.
 * Idempotent.
 */
export function keepTickObjectShape(): void {
  if (kept) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') kept ??= resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
}

/** The tick object kept, if any (for tests). */
export const keptTickObject = (): object | undefined => kept;

function noop(): void {}
