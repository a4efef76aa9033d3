import type { Response } from 'express';

/**
 * A JSON document written piece by piece as it is read (DESIGN.md §20's export): each write waits
 * while the client is slower than the source, so memory holds a piece, never the document. No
 * `ETag`: the bytes are not known before they are sent.
 */
export class JsonStream {
  private started = false;

  constructor(private readonly res: Response) {}

  /** Sends the head; every later failure can only cut the answer short. */
  begin(status = 200): void {
    this.res.status(status);
    this.res.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-store');
    this.res.flushHeaders();
  }

  /** Writes raw JSON text, waiting for the client to take what was written before. */
  async write(text: string | Uint8Array): Promise<void> {
    if (this.res.destroyed) throw new Error('the client went away');
    if (!this.res.write(text)) await drained(this.res);
  }

  /** `[` then each item as JSON, comma-separated, then `]`. */
  async array<T>(items: AsyncIterable<T[]>, map: (item: T) => unknown): Promise<void> {
    await this.write('[');
    this.started = false;
    for await (const batch of items) {
      if (batch.length === 0) continue;
      const text = batch.map((item) => JSON.stringify(map(item))).join(',');
      await this.write(this.started ? `,${text}` : text);
      this.started = true;
    }
    await this.write(']');
  }

  /** Relays bytes another service streams (a JSON value), piece by piece. */
  async relay(body: AsyncIterable<Uint8Array>): Promise<void> {
    for await (const chunk of body) await this.write(chunk);
  }

  end(): void {
    this.res.end();
  }
}

/**
 * Until the client took what was written, or went away: a client that goes away never drains, and
 * its close ends the wait (the next write throws). Whichever comes, both listeners go: a long export
 * to a slow client waits thousands of times on one answer.
 */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}
