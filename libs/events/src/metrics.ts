import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Metrics live in the caller's registry. A second relay or consumer in the same process (tests, or two
 * consumers in one service) reuses the metric already registered instead of failing on the duplicate name.
 */
export function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function gauge(registry: Registry, name: string, help: string, collect: () => Promise<number>): Gauge {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Gauge;
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(await collect());
    },
  });
}
