/** One Server-Sent Event, as the stream's fields gave it. */
interface ServerSentEvent {
  id: string | null;
  event: string;
  data: string;
}

/** How long to wait before reconnecting when the server names no `retry:`. */
const RECONNECT_MS = 1_000;
/** Ids remembered to yield nothing twice: more than one replay (100) can hold. */
const SEEN_CAP = 1_000;

/** Parses `text/event-stream` (the HTML standard's rules) from a body, event by event. */
async function* events(body: ReadableStream<Uint8Array>, onRetry: (ms: number) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event: ServerSentEvent = { id: null, event: 'message', data: '' };
  let hasData = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (hasData) yield event;
          event = { id: event.id, event: 'message', data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          event.data = hasData ? `${event.data}\n${text}` : text;
          hasData = true;
        } else if (field === 'id' && !text.includes('\0')) event.id = text;
        else if (field === 'event') event.event = text;
        else if (field === 'retry' && /^\d+$/.test(text)) onRetry(Number(text));
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/**
 * The data of every event of a stream, as JSON, for as long as `signal` lets it run: when the
 * connection ends or breaks, it reconnects with `Last-Event-ID` (the server replays what was
 * missed) and skips any id it already yielded. An error opening it (401, a 429 past the retries)
 * ends the iteration by rejecting.
 */
export async function* streamEvents<T>(
  open: (lastEventId: string | null) => Promise<Response>,
  { signal, lastEventId = null }: { signal?: AbortSignal; lastEventId?: string | null },
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let last = lastEventId;
  let reconnectMs = RECONNECT_MS;
  while (!signal?.aborted) {
    let res: Response;
    try {
      res = await open(last);
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    try {
      for await (const event of events(res.body!, (ms) => (reconnectMs = ms))) {
        if (event.id !== null) {
          last = event.id;
          if (seen.has(event.id)) continue;
          seen.add(event.id);
          if (seen.size > SEEN_CAP) seen.delete(seen.values().next().value!);
        }
        yield JSON.parse(event.data) as T;
      }
    } catch {
      // The connection broke (or the signal fired): reconnect below unless we were told to stop.
    }
    await pause(reconnectMs, signal);
  }
}
