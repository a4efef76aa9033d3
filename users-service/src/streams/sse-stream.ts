import type { Notification } from '@community/contracts';

/** A reader this far behind is dropped: it reconnects with `Last-Event-ID` and loses nothing. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** Ids remembered as sent, against a notification arriving twice (the replay and the bus). */
const REMEMBERED_IDS = 1_000;

/**
 * Where a stream's bytes go: the client's own answer (./response-sink.ts), or the gateway's channel
 * (./channel.ts).
 */
export interface StreamSink {
  /** Sends the stream's head. */
  open(): void;
  write(chunk: string): void;
  end(): void;
  /** What was written and not taken by the reader yet, in bytes. */
  readonly backlog: number;
  /** Calls `leave` once when the reader goes; checked once the hub holds the stream. */
  onLeave(leave: () => void): void;
}

/**
 * One open `GET /notifications/stream` (DESIGN.md §13): Server-Sent Events, `id:` the notification
 * id, `event: notification`, `data:` the item. Live notifications that arrive while what was missed
 * is still being read are held back and sent after it, each id at most once. Ids come in commit
 * order, which is not always id order (replicas and consumers commit side by side).
 */
export class SseStream {
  private readonly sent = new Set<number>();
  /** The client's `Last-Event-ID`: it has that and everything before it. */
  private floor = 0;
  private held: Notification[] | undefined = [];
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly recipientId: number,
    private readonly sink: StreamSink,
    heartbeatMs: number,
    private readonly onClose: (stream: SseStream) => void,
  ) {
    // The head and a first line go out at once: the client knows the stream is open.
    sink.open();
    sink.write(': open\n\n');
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), heartbeatMs).unref();
    sink.onLeave(() => this.close());
  }

  /**
   * What was missed after `lastEventId`, oldest first; then the live notifications held meanwhile.
   * Nothing at or below `lastEventId` is sent, even when its bus message comes late.
   */
  replay(missed: Notification[], lastEventId = 0): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.floor = lastEventId;
    for (const item of [...missed, ...held]) this.push(item);
  }

  push(item: Notification): void {
    if (this.held) {
      this.held.push(item);
      return;
    }
    if (item.id <= this.floor || this.sent.has(item.id)) return;
    this.sent.add(item.id);
    if (this.sent.size > REMEMBERED_IDS) this.sent.delete(this.sent.values().next().value!);
    this.write(`id: ${item.id}\nevent: notification\ndata: ${JSON.stringify(item)}\n\n`);
  }

  /** Ends the stream; the client reconnects (to any replica) with `Last-Event-ID`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.sink.end();
    this.onClose(this);
  }

  private write(chunk: string): void {
    if (this.closed) return;
    if (this.sink.backlog > MAX_BUFFERED_BYTES) return this.close();
    this.sink.write(chunk);
  }
}
