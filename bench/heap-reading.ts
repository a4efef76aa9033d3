/**
 * A process's memory after a full garbage collection, read through its inspector: what it holds,
 * not what it allocated lately (bench:streams). The process runs with `--inspect=127.0.0.1:0`
 * (NODE_OPTIONS), which writes the inspector's address to its log; loopback only.
 */
import { readFileSync } from 'node:fs';
import { WebSocket } from 'undici';

export interface HeapReading {
  /** The JavaScript heap in use, KiB. */
  heapKiB: number;
  /** Memory of C++ objects bound to JavaScript ones (sockets' buffers among them), KiB. */
  externalKiB: number;
}

/** The inspector's address a process last wrote to its log. */
function inspectorUrl(logFile: string): string {
  const urls = [...readFileSync(logFile, 'utf8').matchAll(/Debugger listening on (ws:\/\/\S+)/g)];
  const url = urls.at(-1)?.[1];
  if (!url) throw new Error(`no inspector address in ${logFile}: run the process with --inspect`);
  return url;
}

interface InspectorAnswer {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

const kib = (bytes: number) => bytes / 1024;

/** Two full collections in the process that logs to `logFile`, then its heap. */
export async function collectedHeap(logFile: string): Promise<HeapReading> {
  const socket = new WebSocket(inspectorUrl(logFile));
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  const answers = new Map<number, (message: InspectorAnswer) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as InspectorAnswer;
    if (message.id !== undefined) answers.get(message.id)?.(message);
  };
  let lastId = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++lastId;
      answers.set(id, ({ result, error }) =>
        error ? reject(new Error(`${method}: ${error.message}`)) : resolve(result),
      );
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    await call('HeapProfiler.collectGarbage');
    const result = (await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    const usage = JSON.parse(result.result.value) as NodeJS.MemoryUsage;
    return {
      heapKiB: kib(usage.heapUsed),
      externalKiB: kib(usage.external),
    };
  } finally {
    socket.close();
  }
}
