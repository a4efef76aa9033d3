import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallerGoneError, StalledError } from './breaker';
import {
  forward,
  servicePool,
  type Forwarded,
  type ForwardOptions,
  type PoolOptions,
  type ServicePool,
} from './forward';

/**
 * The long-lived answers of one service: no timeout once the head came, on connections of their own
 * (they would hold the request pool's for hours); the head must come within `timeoutMs`.
 */
export class Streams {
  private readonly service: ServicePool;

  constructor(private readonly opts: PoolOptions & { name: string }) {
    // As many as are open: the open streams are capped per account (streams/open-streams.ts).
    this.service = servicePool({ ...opts, endless: true, connections: null });
  }

  relay(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      // Assigned below: a request the service cannot be sent fails before forward() returns.
      let upstream: Forwarded | null = null;
      let timer: NodeJS.Timeout | undefined = undefined;
      const settle = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          upstream?.abort(err);
          reject(err);
        } else resolve();
      };
      upstream = forward(req, res, this.service, options, {
        answered: () => settle(),
        failed: (err) => {
          // The client gone first: nobody to answer, and nothing the service did.
          if (err instanceof CallerGoneError) return settle();
          // A service that dies before its head, while the client waits: the caller answers 503.
          settle(err);
          if (res.headersSent) res.destroy();
        },
      });
      if (settled) return;
      timer = setTimeout(
        () => settle(new StalledError(`the ${this.opts.name} service did not answer`)),
        this.opts.timeoutMs,
      );
      // Whoever leaves first, the other side goes too: a client gone frees the service's stream.
      res.once('close', () => settle());
    });
  }

  close(): void {
    void this.service.pool.destroy();
  }
}
