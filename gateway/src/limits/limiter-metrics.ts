import { Gauge, type Registry } from 'prom-client';
import { Tally } from '@community/http-kit';
import type { Subject } from './decision';
import type { Store } from './limiter';

type Outcome = 'allowed' | 'rejected';
type DecisionLabels = Readonly<Record<'outcome' | 'subject' | 'store', string>>;

/** The decision counter's label objects, one per combination, made once (Tally.inc). */
const DECISION_LABELS = labelTree(['allowed', 'rejected'] as const, (outcome) =>
  labelTree(['account', 'anonymous', 'pages', 'client'] as const, (subject) =>
    labelTree(['redis', 'memory'] as const, (store): DecisionLabels =>
      Object.freeze({ outcome, subject, store }),
    ),
  ),
);

function labelTree<K extends string, V>(keys: readonly K[], make: (key: K) => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, make(key)])) as Record<K, V>;
}

/**
 * What the limiter reports: `gateway_limiter_decisions_total`, and `gateway_limiter_fallback_active`
 * — 1 while limits are decided in memory (Redis unreachable, or its cool-off), read at each scrape.
 */
export class LimiterMetrics {
  private readonly decisions: Tally<'outcome' | 'subject' | 'store'>;

  constructor(registry: Registry, inMemory: () => boolean) {
    const labelNames = ['outcome', 'subject', 'store'] as const;
    this.decisions = new Tally({
      name: 'gateway_limiter_decisions_total',
      help: 'Rate limit decisions',
      labelNames,
      registry,
    });
    const fallback: Gauge = new Gauge({
      name: 'gateway_limiter_fallback_active',
      help: 'Whether rate limits are decided in memory, Redis being unreachable (1) or not (0)',
      registers: [registry],
      collect: () => fallback.set(inMemory() ? 1 : 0),
    });
  }

  decided(outcome: Outcome, subject: Subject['kind'], store: Store): void {
    this.decisions.inc(DECISION_LABELS[outcome][subject][store]);
  }
}
