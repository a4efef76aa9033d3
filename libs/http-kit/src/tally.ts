import { Counter, type Registry } from 'prom-client';

/**
 * A prom-client counter for the request path. prom-client hashes the label values on every `inc`;
 * here a count is one addition, under a label object the caller passes each time (a constant, the
 * same object for the same values: it is the key), and the counts reach the counter when it is
 * collected, at a scrape. Same metric, same values, nothing made per request. (A fresh object per
 * call still counts right, as one more entry until the next scrape.)
 */
export class Tally<L extends string> {
  private readonly pending = new Map<Readonly<Record<L, string>>, number>();

  constructor(options: { name: string; help: string; labelNames: readonly L[]; registry: Registry }) {
    const pending = this.pending;
    new Counter<L>({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [options.registry],
      collect() {
        for (const [labels, count] of pending) this.inc(labels, count);
        pending.clear();
      },
    });
  }

  /** Counts one under `labels`: pass the same object for the same values. */
  inc(labels: Readonly<Record<L, string>>): void {
    this.pending.set(labels, (this.pending.get(labels) ?? 0) + 1);
  }
}
