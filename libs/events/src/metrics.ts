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

type Read = () => Promise<number | undefined>;
const seriesOf = new WeakMap<Gauge, Map<string, Read>>();

/**
 * One series, `label="value"`, of a gauge read at each scrape: every reader in the registry (two
 * consumers in one process) adds its own series to the one gauge. `read` answers undefined to leave
 * the series' last value (a broker away must not fail the scrape). Returns the series' removal.
 */
export function gaugeSeries(
  registry: Registry,
  { name, help, label }: { name: string; help: string; label: string },
  value: string,
  read: Read,
): () => void {
  const existing = registry.getSingleMetric(name) as Gauge | undefined;
  const gauge =
    existing ??
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        const readings = [...(seriesOf.get(this) ?? [])].map(async ([series, read]) => {
          const reading = await read();
          if (reading !== undefined) this.set({ [label]: series }, reading);
        });
        await Promise.all(readings);
      },
    });
  let series = seriesOf.get(gauge);
  if (!series) seriesOf.set(gauge, (series = new Map()));
  series.set(value, read);
  return () => {
    series.delete(value);
    gauge.remove({ [label]: value });
  };
}
