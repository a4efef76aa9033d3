import { createHook } from 'node:async_hooks';

/** The tick object kept for the life of the process (see {@link keepTickObjectShape}). */
let kept: object | undefined;

/**
 * Keeps one `process.nextTick` tick object alive for the life of the process, so that the hidden
 * classes ("maps") of every later one stay alive too — and node's stream and HTTP code stays fast
 * after the process has been idle.
 *
 * Node 20 builds each tick object with an object literal whose keys are computed
 * (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`), and V8 remembers,
 * weakly, the map each of those keys is added to. A process left idle for ~8 s gets a
 * memory-reducing garbage collection, which keeps no map that no live object has; with no tick
 * object alive at that moment, their maps die. V8 then finds the remembered maps gone, marks those
 * sites megamorphic for good, and from then on every tick object — several a request in node's
 * streams — is built property by property in V8's runtime: in the gateway ~9 µs of CPU a request,
 * for the rest of the process's life (bench/RESULTS.md). A tick object kept here holds its map and,
 * through it, the maps it was built through.
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
