import http from 'node:http';

/** One Server-Sent Event as a client parses it; a comment line is `{ comment }`. */
export interface StreamEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface OpenedStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The whole body when the answer is not a stream (an error in the envelope). */
  text: Promise<string>;
  /** Everything received so far, in order. */
  events: StreamEvent[];
  /** The `data` of each `event: notification`, parsed. */
  notifications(): any[];
  /** Resolves with the first event (counting from `from`) that matches, or rejects after `timeoutMs`. */
  next(match: (event: StreamEvent) => boolean, timeoutMs?: number, from?: number): Promise<StreamEvent>;
  /** Resolves when the server ends or cuts the stream. */
  ended: Promise<void>;
  close(): void;
}

/**
 * Opens `GET url` and reads it as Server-Sent Events (the WHATWG rules: `field: value` lines, a blank
 * line ends an event, `:` starts a comment) — what a browser's EventSource or `curl -N` sees.
 */
export function openEventStream(url: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    // A connection of its own, closed with the stream (no keep-alive pool holds it afterwards).
    const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) =>
      resolve(readEventStream(req, res)),
    );
    req.on('error', reject);
  });
}

function readEventStream(req: http.ClientRequest, res: http.IncomingMessage): OpenedStream {
  const events: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  const parse = eventParser(events, () => {
    for (const wake of [...waiters]) wake();
  });
  let whole = '';
  const ended = new Promise<void>((done) => res.once('close', () => done()));
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    whole += chunk;
    parse(chunk);
  });
  res.on('error', () => undefined);
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    text: ended.then(() => whole),
    events,
    notifications: () =>
      events.filter((e) => e.event === 'notification').map((e) => JSON.parse(e.data ?? 'null')),
    next: (match, timeoutMs = 5_000, from = 0) => nextEvent(events, waiters, match, timeoutMs, from),
    ended,
    close: () => req.destroy(),
  };
}

/**
 * Parses the stream chunk by chunk into `events`, a line at a time; `dispatched` is called at every
 * blank line (the end of an event), so waiters look again.
 */
function eventParser(events: StreamEvent[], dispatched: () => void): (chunk: string) => void {
  let buffer = '';
  let current: StreamEvent = {};
  const readLine = (line: string) => {
    if (line === '') {
      if (Object.keys(current).length) events.push(current);
      current = {};
      dispatched();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      events.push({ comment: line.slice(1).trim() });
      return;
    }
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id' || field === 'event') current[field] = value;
    if (field === 'data') current.data = current.data === undefined ? value : `${current.data}\n${value}`;
  };
  return (chunk) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      readLine(line);
    }
  };
}

/** The first of `events` from `from` on that matches, as soon as it arrives, or a timeout error. */
function nextEvent(
  events: StreamEvent[],
  waiters: Set<() => void>,
  match: (event: StreamEvent) => boolean,
  timeoutMs: number,
  from: number,
): Promise<StreamEvent> {
  return new Promise((found, fail) => {
    const look = () => {
      const hit = events.slice(from).find(match);
      if (!hit) return false;
      clearTimeout(timer);
      waiters.delete(wake);
      found(hit);
      return true;
    };
    const wake = () => void look();
    const timer = setTimeout(() => {
      waiters.delete(wake);
      fail(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
    }, timeoutMs);
    if (!look()) waiters.add(wake);
  });
}
