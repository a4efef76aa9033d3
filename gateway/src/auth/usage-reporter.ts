import { toTimestamp } from '@community/contracts';
import type { Logger } from '@community/logging';
import type { UsersClient } from './users-client';

/**
 * Remembers which keys were used and reports them to users-service in one call every few seconds,
 * so last-used times stay right although most requests never reach users-service.
 */
export class UsageReporter {
  private pending = new Map<number, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly users: UsersClient,
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  used(keyId: number): void {
    this.pending.set(keyId, new Date());
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const used = [...batch].map(([key_id, at]) => ({ key_id, at: toTimestamp(at) }));
    try {
      const res = await this.users.post('/internal/keys/usage', { used });
      if (res.status !== 200) throw new Error(`answered ${res.status}`);
    } catch (err) {
      for (const [keyId, at] of batch) if (!this.pending.has(keyId)) this.pending.set(keyId, at);
      this.logger.warn(
        { err: { message: (err as Error).message }, keys: used.length },
        'key usage not reported yet',
      );
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
