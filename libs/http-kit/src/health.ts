import type { Router } from 'express';
import type { Registry } from 'prom-client';

export interface ReadinessCheck {
  name: string;
  /** A failing critical check makes the service unready (503); a failing optional one makes it degraded. */
  critical: boolean;
  run: () => Promise<unknown>;
}

export interface HealthOptions {
  version: string;
  checks: ReadinessCheck[];
  registry: Registry;
  isShuttingDown: () => boolean;
  timeoutMs?: number;
}

type CheckResult = { status: 'ok' | 'down'; latency_ms: number; error?: string };

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.run(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok', latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { status: 'down', latency_ms: Math.round(performance.now() - started), error: message };
  } finally {
    clearTimeout(timer);
  }
}

/** The paths {@link mountHealth} serves: orchestrator probes and the Prometheus scrape. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** `/healthz` (the process answers), `/readyz` (per dependency, with the version) and `/metrics`. */
export function mountHealth(
  router: Pick<Router, 'get'>,
  { version, checks, registry, isShuttingDown, timeoutMs = 2000 }: HealthOptions,
) {
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(checks.map((check) => runCheck(check, timeoutMs)));
    const byName = Object.fromEntries(checks.map((check, i) => [check.name, results[i]]));
    const criticalDown = checks.some((check, i) => check.critical && results[i]?.status === 'down');
    const anyDown = results.some((result) => result.status === 'down');
    const status = isShuttingDown()
      ? 'shutting_down'
      : criticalDown
        ? 'unavailable'
        : anyDown
          ? 'degraded'
          : 'ok';
    res
      .status(status === 'ok' || status === 'degraded' ? 200 : 503)
      .json({ status, version, checks: byName });
  });

  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  });
}
