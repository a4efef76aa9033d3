// What every service does at start (libs/service-runtime/src/tick-shape.ts), for the bench's plain
// Node proxies: keep one process.nextTick tick object alive, so that an idle spell's memory-reducing
// collection cannot kill the tick objects' maps and leave node's streams building every later one in
// V8's runtime. Without it a bare proxy's cost depends on whether it idled before its run.
import { createHook } from 'node:async_hooks';
import process from 'node:process';

let kept;
const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'TickObject') kept ??= resource;
  },
});
hook.enable();
process.nextTick(() => {});
hook.disable();
// Exported: the module holds it, and with it the tick objects' maps, for the process's life.
export const keptTickObject = kept;
