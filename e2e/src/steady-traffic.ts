import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { openEventStream, type OpenedStream } from '@community/test-harness';

/** One request of the steady traffic and how it ended; status 0: no HTTP answer at all. */
export interface Sent {
  op: string;
  status: number;
  expected: number;
  at: number;
  body?: any;
  error?: string;
}

export interface Caller {
  key: string;
  ip: string;
}

/**
 * A client that never sends a request again: one pool of kept-alive connections, as any HTTP
 * library keeps them, letting an idle one go after 1 s (undici's default is 4 s; a server's
 * SHUTDOWN_DELAY_MS must outlast it — DESIGN.md §16). Every request is recorded.
 */
export class PlainClient {
  readonly sent: Sent[] = [];
  private readonly pool: Pool;

  constructor(baseUrl: string) {
    this.pool = new Pool(baseUrl, {
      keepAliveTimeout: 1_000,
      keepAliveMaxTimeout: 1_000,
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
  }

  async call(
    as: Caller,
    op: string,
    [method, path, expected]: [string, string, number],
    { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Sent> {
    const at = Date.now();
    let sent: Sent;
    try {
      const res = await this.pool.request({
        method,
        path,
        headers: {
          authorization: `Bearer ${as.key}`,
          'x-forwarded-for': as.ip,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      sent = { op, status: res.statusCode, expected, at, body: text ? JSON.parse(text) : undefined };
    } catch (err) {
      sent = { op, status: 0, expected, at, error: (err as Error).message };
    }
    this.sent.push(sent);
    return sent;
  }

  failures(): Sent[] {
    return this.sent.filter((s) => s.status !== s.expected);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * A notification stream kept open as an EventSource keeps it: when it ends it is opened again with
 * `Last-Event-ID`, the id of the last notification it got; a refused open is tried again shortly.
 */
export class StreamFollower {
  /** The notification ids of the streams that ended, in the order they came. */
  private readonly before: number[] = [];
  /** Each stream's `Last-Event-ID` and the ids it gave, for telling a repeat the protocol allows. */
  private readonly segments: { lastEventId?: number; ids: number[] }[] = [];
  private currentLastEventId: number | undefined;
  /** Opens after the first that continued from a Last-Event-ID. */
  resumed = 0;
  /** Opens that got no stream (an error or another status than 200). */
  refused = 0;
  private current: OpenedStream | null = null;
  private stopped = false;
  private readonly running: Promise<void>;
  private readonly opened: Promise<void>;

  constructor(url: string, key: string) {
    let markOpen = () => {};
    this.opened = new Promise((resolve) => (markOpen = resolve));
    this.running = this.follow(url, key, markOpen);
  }

  /** Every notification id, in the order the streams gave them, the open one's included. */
  get ids(): number[] {
    return [...this.before, ...notificationIds(this.current)];
  }

  /**
   * Ids a stream gave again that `Last-Event-ID` does not explain. A reconnect asks for what came
   * after the last id the client got; when two replicas committed a recipient's notifications out
   * of id order, a higher id the client already had comes again — an EventSource sees it twice,
   * and the SDK drops it. Any other repeat (at or below the id sent, or twice in one stream) is a
   * fault.
   */
  unexplainedRepeats(): number[] {
    const seen = new Set<number>();
    const wrong: number[] = [];
    const segments = [
      ...this.segments,
      { lastEventId: this.currentLastEventId, ids: notificationIds(this.current) },
    ];
    for (const { lastEventId, ids } of segments) {
      const inThisStream = new Set<number>();
      for (const id of ids) {
        const allowed = lastEventId !== undefined && id > lastEventId && !inThisStream.has(id);
        if (seen.has(id) && !allowed) wrong.push(id);
        seen.add(id);
        inThisStream.add(id);
      }
    }
    return wrong;
  }

  /** Resolves once the first stream is open. */
  ready(): Promise<void> {
    return this.opened;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.close();
    await this.running;
  }

  private async follow(url: string, key: string, markOpen: () => void): Promise<void> {
    for (let first = true; !this.stopped;) {
      const last = this.before.at(-1);
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (last !== undefined) headers['last-event-id'] = String(last);
      const stream = await openEventStream(url, headers).catch(() => null);
      if (!stream || stream.status !== 200) {
        this.refused++;
        await sleep(200);
        continue;
      }
      if (!first) this.resumed++;
      first = false;
      this.current = stream;
      this.currentLastEventId = last;
      markOpen();
      await this.read(stream);
    }
  }

  private async read(stream: OpenedStream): Promise<void> {
    await stream.ended;
    const ids = notificationIds(stream);
    this.before.push(...ids);
    this.segments.push({ lastEventId: this.currentLastEventId, ids });
    this.current = null;
  }
}

const notificationIds = (stream: OpenedStream | null): number[] =>
  (stream?.events ?? []).filter((e) => e.event === 'notification').map((e) => Number(e.id));
