/**
 * The receivers of `npm run bench:webhooks`: node:http servers on 127.0.0.1 that answer 200 at once
 * and keep every delivery for verification after the phase, and how many each held open at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** Epoch milliseconds with sub-millisecond resolution: comparable with PostgreSQL's now() on this host. */
export const now = () => performance.timeOrigin + performance.now();

export interface Delivery {
  receiver: number;
  at: number;
  postId: number;
  body: string;
  headers: Record<string, string>;
}

/** The receivers of one run: numbered, each with its own URL, deliveries kept in arrival order. */
export class Receivers {
  readonly received: Delivery[] = [];
  private readonly firstArrival = new Map<string, Delivery>(); // `${receiver}:${postId}`
  private readonly servers: http.Server[] = [];
  private readonly open = new Map<number, number>();
  /** The most requests one receiver held open at once (DESIGN.md §6: an endpoint holds ≤ 10). */
  maxInFlight = 0;
  private wake: (() => void) | undefined;

  /** Starts receiver number `receiver`; resolves to its URL. */
  async start(receiver: number): Promise<string> {
    const server = http.createServer((req, res) => this.receive(receiver, req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${receiver}`;
  }

  private receive(receiver: number, req: http.IncomingMessage, res: http.ServerResponse): void {
    const at = now();
    const open = (this.open.get(receiver) ?? 0) + 1;
    this.open.set(receiver, open);
    this.maxInFlight = Math.max(this.maxInFlight, open);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.open.set(receiver, this.open.get(receiver)! - 1);
      res.writeHead(200).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const postId = Number(/"data":\{"id":(\d+)/.exec(body)?.[1] ?? -1);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const delivery = { receiver, at, postId, body, headers };
      this.received.push(delivery);
      if (!this.firstArrival.has(`${receiver}:${postId}`))
        this.firstArrival.set(`${receiver}:${postId}`, delivery);
      this.wake?.();
    });
  }

  /** The first delivery of post `postId` at `receiver`. */
  first(receiver: number, postId: number): Delivery | undefined {
    return this.firstArrival.get(`${receiver}:${postId}`);
  }

  /** True when every receiver has had every post. */
  arrived(receivers: number[], ids: number[]): boolean {
    return ids.every((id) => receivers.every((r) => this.firstArrival.has(`${r}:${id}`)));
  }

  /** Resolves when `done()` holds after a delivery, fails after `ms`. */
  waitFor(done: () => boolean, ms: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        reject(new Error(`no ${what} within ${ms / 1000} s`));
      }, ms);
      this.wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake();
    });
  }

  /** Signature failures and duplicate webhook-ids among the receivers' deliveries. */
  check(receivers: number[], secrets: Map<number, string>) {
    const mine = this.received.filter((d) => receivers.includes(d.receiver));
    const failures = mine.filter((d) => {
      try {
        new Webhook(secrets.get(d.receiver)!).verify(d.body, d.headers);
        return false;
      } catch {
        return true;
      }
    }).length;
    const duplicates =
      mine.length - new Set(mine.map((d) => `${d.receiver} ${d.headers['webhook-id']}`)).size;
    return { failures, duplicates };
  }

  close(): void {
    for (const server of this.servers) server.close().closeAllConnections();
  }
}
