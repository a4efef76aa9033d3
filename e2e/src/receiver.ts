import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the webhook-service made to the receiver. */
export interface Received {
  endpoint: string;
  webhookId: string;
  headers: Record<string, string>;
  rawBody: string;
  /** The status the receiver answered; null while it is held or when the connection died first. */
  answered: number | null;
  /**
   * The check made as the request arrived, when the endpoint's secret was known: a receiver checks
   * the timestamp against its clock then, and a long test that read it minutes later would find
   * every early delivery "too old" (Standard Webhooks allows five minutes).
   */
  checked?: { payload: Omit<Delivery, 'webhookId'> } | { error: unknown };
}

/** A verified delivery: the payload standardwebhooks returned after checking the signature. */
export interface Delivery {
  webhookId: string;
  event: string;
  timestamp: string;
  data: Record<string, any>;
}

/** How the receiver answers: 200, a given status, or not at all until released (an attempt in flight). */
export type ReceiverMode = { kind: 'ok' } | { kind: 'status'; status: number } | { kind: 'hold' };

/**
 * A webhook subscriber for the suite: every POST to /hooks/<endpoint> is recorded with its raw body
 * and headers; signatures are checked with the `standardwebhooks` package against the endpoint's
 * secret, which is known only after the endpoint was created (so checking happens on read).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly held = new Set<http.ServerResponse>();
  private mode: ReceiverMode = { kind: 'ok' };

  private readonly server = http.createServer((req, res) => this.handle(req, res));

  private constructor(readonly publicHost: string) {}

  static async start(opts: { bind?: string; publicHost?: string; port?: number } = {}) {
    const receiver = new WebhookReceiver(opts.publicHost ?? '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(opts.port ?? 0, opts.bind ?? '127.0.0.1', resolve);
    });
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(endpoint: string): string {
    return `http://${this.publicHost}:${this.port}/hooks/${endpoint}`;
  }

  /** The secret the endpoint's deliveries are signed with (from the creation answer). */
  trust(endpoint: string, secret: string): void {
    this.secrets.set(endpoint, secret);
  }

  setMode(mode: ReceiverMode): void {
    this.mode = mode;
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** Every request to `endpoint`, verified; throws on the first one whose signature does not hold. */
  verified(endpoint: string): Delivery[] {
    const secret = this.secrets.get(endpoint);
    if (!secret) throw new Error(`no secret registered for endpoint ${endpoint}`);
    return this.received
      .filter((r) => r.endpoint === endpoint)
      .map((r) => {
        const checked = r.checked ?? check(secret, r);
        if ('error' in checked) throw checked.error;
        return { webhookId: r.webhookId, ...checked.payload };
      });
  }

  /** The verified deliveries of `endpoint` that were acknowledged with a 2xx, one per webhook-id. */
  acknowledged(endpoint: string): Delivery[] {
    const ok = new Set(
      this.received
        .filter((r) => r.endpoint === endpoint && r.answered !== null && r.answered < 300)
        .map((r) => r.webhookId),
    );
    const byId = new Map<string, Delivery>();
    for (const delivery of this.verified(endpoint)) {
      if (ok.has(delivery.webhookId)) byId.set(delivery.webhookId, delivery);
    }
    return [...byId.values()];
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const match = /^\/hooks\/([\w-]+)$/.exec(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !match?.[1]) {
        res.writeHead(404).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      const record: Received = {
        endpoint: match[1],
        webhookId: headers['webhook-id'] ?? '',
        headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        answered: null,
      };
      const secret = this.secrets.get(record.endpoint);
      if (secret) record.checked = check(secret, record);
      this.received.push(record);
      this.answer(record, res);
    });
  }

  private answer(record: Received, res: http.ServerResponse): void {
    const mode = this.mode;
    if (mode.kind === 'hold') {
      this.held.add(res);
      res.once('close', () => this.held.delete(res));
      return;
    }
    const status = mode.kind === 'ok' ? 200 : mode.status;
    record.answered = status;
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
  }
}

/** Standard Webhooks' check of one request: its payload, or why it does not hold. */
function check(secret: string, r: Received): NonNullable<Received['checked']> {
  try {
    return { payload: new Webhook(secret).verify(r.rawBody, r.headers) as Omit<Delivery, 'webhookId'> };
  } catch (error) {
    return { error };
  }
}
