import type { ServerResponse } from 'node:http';
import { MAX_STREAMS_PER_ACCOUNT, RateLimitedError, type ResolvedKey } from '@community/contracts';
import { Gauge, type Registry } from 'prom-client';
import type { KeyResolver } from '../auth/key-resolver';
import { stillSuspended } from '../auth/suspension';
import type { StreamSlots } from './stream-slots';

export interface OpenStreamsOptions {
  keys: KeyResolver;
  slots: StreamSlots;
  /** How often each open stream's credential is checked again (the key cache answers most). */
  recheckMs: number;
  registry?: Registry;
}

interface Held {
  key: string;
  res: ServerResponse;
}

/** Seconds a client refused a stream is told to wait: a slot frees when one of its streams closes. */
const FULL_RETRY_AFTER_SECONDS = 5;

/**
 * The long-lived answers the gateway relays (`GET /notifications/stream`, DESIGN.md §13): at most
 * MAX_STREAMS_PER_ACCOUNT per account, and each closed once its key or token no longer resolves or its
 * account is suspended. A revocation or suspension drops the cached resolution at once (events), so
 * the next check — every `recheckMs` — closes the stream.
 */
export class OpenStreams {
  private readonly held = new Set<Held>();
  private readonly recheck: NodeJS.Timeout;
  private checking = false;

  constructor(private readonly opts: OpenStreamsOptions) {
    this.recheck = setInterval(() => void this.checkAll(), opts.recheckMs).unref();
    if (opts.registry) {
      const slots = opts.slots;
      new Gauge({
        name: 'gateway_streams_open',
        help: 'Long-lived answers (notification streams) this gateway relays',
        registers: [opts.registry],
        collect() {
          this.set(slots.open);
        },
      });
    }
  }

  /** Holds a slot of the account's for this answer until it closes; `429` when all are taken. */
  async admit(resolved: ResolvedKey, key: string, res: ServerResponse): Promise<void> {
    const slot = await this.opts.slots.take(resolved.user_id);
    if (!slot)
      throw new RateLimitedError(
        `at most ${MAX_STREAMS_PER_ACCOUNT} notification streams may be open per account; close one first`,
        FULL_RETRY_AFTER_SECONDS,
      );
    const held: Held = { key, res };
    this.held.add(held);
    res.once('close', () => {
      this.held.delete(held);
      slot.release();
    });
  }

  close(): void {
    clearInterval(this.recheck);
    for (const { res } of this.held) res.destroy();
  }

  private async checkAll(): Promise<void> {
    // A slow users-service must not pile one round of checks on another.
    if (this.checking) return;
    this.checking = true;
    try {
      await this.checkEach();
    } finally {
      this.checking = false;
    }
  }

  private async checkEach(): Promise<void> {
    for (const held of [...this.held]) {
      let resolved: ResolvedKey | null;
      try {
        resolved = await this.opts.keys.resolve(held.key);
      } catch {
        continue; // users-service unreachable: no news is not a revocation.
      }
      const gone = !resolved || (resolved.suspension !== null && stillSuspended(resolved.suspension));
      if (gone) held.res.destroy();
    }
  }
}
