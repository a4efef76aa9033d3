import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { createPost, deliveredWhen, subscribe } from '../../e2e/src/flows';
import { expectStatus } from '../../e2e/src/client/http';
import { openOwnedTarget, type Target } from '../../e2e/src/target';
import type { OwnedStack } from '../../e2e/src/stack/owned-stack';
import {
  anchorOf,
  dashboardQueries,
  isExported,
  loadPromqlParser,
  parseExposition,
  readYaml,
  rulesOf,
  selectorsOf,
  type Exposition,
  type PromqlParser,
  type Selector,
} from './support/observability';

/*
 * deploy/observability (DESIGN.md §15) holds together: every rule and panel query parses (with
 * Prometheus's own PromQL grammar, no promtool needed), every metric they name is exported by a
 * running stack with the labels they match on, every alert has a runbook and promtool cases that fire
 * it and that must not, and Prometheus scrapes the ports compose gives the services. promtool itself
 * (check rules, test rules) runs in the container test, inside the Prometheus image.
 */

const root = path.resolve(__dirname, '../..');
const recording = rulesOf('recording.yml');
const alerts = rulesOf('alerts.yml');
const queries = [
  ...[...recording, ...alerts].map((rule) => ({ from: rule.record ?? rule.alert!, expr: rule.expr })),
  ...dashboardQueries().map(({ panel, expr }) => ({ from: `panel "${panel}"`, expr })),
];
/** Series Prometheus makes itself: scrape health, alert state, and what recording.yml records. */
const MADE_BY_PROMETHEUS = new Set(['up', 'ALERTS', 'ALERTS_FOR_STATE', ...recording.map((r) => r.record!)]);
/** Target labels Prometheus adds at the scrape; the processes export `service` themselves. */
const TARGET_LABELS = new Set(['job', 'instance']);

let parser: PromqlParser;
beforeAll(async () => {
  parser = await loadPromqlParser();
});

/** Each query's selectors of metrics the services must export. */
function selectorsToExport(): { from: string; selector: Selector }[] {
  return queries.flatMap(({ from, expr }) =>
    selectorsOf(parser, expr)
      .filter((selector) => !MADE_BY_PROMETHEUS.has(selector.metric))
      .map((selector) => ({ from, selector })),
  );
}

describe('rules and dashboard', () => {
  it.each(queries.map((q) => [q.from, q.expr]))('%s parses and names its metrics', (_from, expr) => {
    expect(selectorsOf(parser, expr).length).toBeGreaterThan(0);
  });

  it('gives every alert a summary and a runbook line pointing at a section under "Runbooks"', () => {
    const operations = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
    const runbooks = operations.split(/^## Runbooks$/m)[1]?.split(/^## /m)[0] ?? '';
    const anchors = [...runbooks.matchAll(/^### (.+)$/gm)].map(([, heading]) => anchorOf(heading!));
    for (const alert of alerts) {
      expect({ alert: alert.alert, summary: Boolean(alert.annotations?.summary?.trim()) }).toEqual({
        alert: alert.alert,
        summary: true,
      });
      const anchor = /docs\/operations\.md#([\w-]+)/.exec(alert.annotations?.runbook ?? '')?.[1];
      expect({ alert: alert.alert, anchor }).toEqual({ alert: alert.alert, anchor: expect.any(String) });
      expect(anchors).toContain(anchor);
    }
  });

  it('has for every alert a promtool case that fires it and one where it must not fire', () => {
    const unit = readYaml<{ rule_files: string[]; tests: { alert_rule_test?: AlertCase[] }[] }>(
      'rules/alerts.test.yml',
    );
    type AlertCase = { alertname: string; exp_alerts?: unknown[] };
    const cases = unit.tests.flatMap((test) => test.alert_rule_test ?? []);
    const coverage = (alertname: string) => ({
      alertname,
      fires: cases.some((c) => c.alertname === alertname && (c.exp_alerts ?? []).length > 0),
      staysQuiet: cases.some((c) => c.alertname === alertname && (c.exp_alerts ?? []).length === 0),
    });
    const names = alerts.map((alert) => alert.alert!);
    expect(names.map(coverage)).toEqual(
      names.map((alertname) => ({ alertname, fires: true, staysQuiet: true })),
    );
    expect(unit.rule_files.sort()).toEqual(['alerts.yml', 'recording.yml']);
  });

  it('scrapes each service on the port compose gives it, and loads both rule files', () => {
    const prometheus = readYaml<{
      rule_files: string[];
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    }>('prometheus.yml');
    const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    const PORT_VARIABLES = {
      gateway: 'GATEWAY_PORT',
      'posts-service': 'POSTS_SERVICE_PORT',
      'users-service': 'USERS_SERVICE_PORT',
      'webhook-service': 'WEBHOOK_SERVICE_PORT',
    };
    const scraped = prometheus.scrape_configs.map((job) => [job.job_name, job.dns_sd_configs]);
    expect(scraped).toEqual(
      Object.entries(PORT_VARIABLES).map(([service, variable]) => [
        service,
        [
          expect.objectContaining({
            names: [service],
            type: 'A',
            port: Number(compose.services[service]!.environment[variable]),
          }),
        ],
      ]),
    );
    expect(prometheus.rule_files).toEqual(['rules/recording.yml', 'rules/alerts.yml']);
  });
});

describe('on a running stack', () => {
  let target: Target & { owned: OwnedStack };
  const exported: Exposition = { types: new Map(), series: new Map() };
  const servicesWithRequestSeries = new Set<string>();

  beforeAll(async () => {
    target = await openOwnedTarget('observability');
    await makeTraffic(target);
    for (const processes of Object.values(target.owned.replicas)) {
      for (const replica of processes) {
        const res = await fetch(`${replica.url}/metrics`);
        expect(res.status).toBe(200);
        const text = await res.text();
        parseExposition(text, exported);
        const service = /^http_server_request_duration_seconds_count\{[^}]*service="([^"]+)"/m.exec(
          text,
        )?.[1];
        if (service) servicesWithRequestSeries.add(service);
      }
    }
  }, 180_000);
  afterAll(() => target?.close(), 60_000);

  it('exports every metric a rule or a panel names', () => {
    const missing = selectorsToExport()
      .filter(({ selector }) => !isExported(selector.metric, exported))
      .map(({ from, selector }) => `${selector.metric} (${from})`);
    expect([...new Set(missing)]).toEqual([]);
  });

  it('exports them with the labels the queries match on', () => {
    const unknown = selectorsToExport().flatMap(({ from, selector }) => {
      const labels = exported.series.get(selector.metric);
      if (!labels) return [];
      return selector.labels
        .filter((label) => !TARGET_LABELS.has(label) && !labels.has(label))
        .map((label) => `${selector.metric}{${label}} (${from})`);
    });
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('records request durations on the gateway and every service', () => {
    expect([...servicesWithRequestSeries].sort()).toEqual([
      'gateway',
      'posts-service',
      'users-service',
      'webhook-service',
    ]);
  });
});

/** Reads and writes through the gateway that reach every service, and one webhook delivery. */
async function makeTraffic({ world, receiver }: Target): Promise<void> {
  const admin = await world.admin();
  const as = world.as(admin);
  const categoryId = await world.category();
  await subscribe(as, receiver, 'observability', ['post.created']);
  const post = await createPost(as, categoryId);
  expectStatus(await as('GET', `/api/v1/posts/${post.id}`), 200);
  expectStatus(await as('GET', '/api/v1/posts'), 200);
  expectStatus(await as('GET', '/api/v1/webhooks'), 200);
  await deliveredWhen(receiver, 'observability', (deliveries) => deliveries.length > 0);
}
