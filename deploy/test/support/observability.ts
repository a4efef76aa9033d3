import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as LezerPromql from '@prometheus-io/lezer-promql' with { 'resolution-mode': 'import' };
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../../..');
export const OBSERVABILITY = path.join(root, 'deploy/observability');

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every rule of deploy/observability/rules/<file>, across its groups. */
export function rulesOf(file: string): Rule[] {
  const doc = readYaml<{ groups: { rules: Rule[] }[] }>(`rules/${file}`);
  return doc.groups.flatMap((group) => group.rules);
}

export function readYaml<T>(file: string): T {
  return parse(readFileSync(path.join(OBSERVABILITY, file), 'utf8')) as T;
}

interface Panel {
  type: string;
  title: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Every panel query of the dashboard, named by its panel's title. */
export function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(
    readFileSync(path.join(OBSERVABILITY, 'grafana/dashboards/community.json'), 'utf8'),
  ) as { panels: Panel[] };
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  return panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: String(target.expr ?? '') })),
  );
}

/** Grafana's interval variables, as Prometheus would see them once Grafana has filled them in. */
const fillGrafanaVariables = (expr: string) =>
  expr.replace(/\$__(rate_interval|interval|range)\b/g, (_, name: string) =>
    name === 'range' ? '1h' : '5m',
  );

export type PromqlParser = (typeof LezerPromql)['parser'];

/**
 * Prometheus's own PromQL grammar (@prometheus-io/lezer-promql, the one its web UI uses). Its typings
 * declare it ESM only; it ships a CommonJS build too, which jest's dynamic import loads.
 */
export const loadPromqlParser = (): Promise<PromqlParser> =>
  import('@prometheus-io/lezer-promql').then((promql) => promql.parser);

/** One vector selector of a query: the metric it names and the labels it matches on. */
export interface Selector {
  metric: string;
  labels: string[];
}

/** The selectors of a PromQL query; throws where it does not parse or a selector names no metric. */
export function selectorsOf(parser: PromqlParser, query: string): Selector[] {
  const expr = fillGrafanaVariables(query);
  const cursor = parser.parse(expr).cursor();
  const selectors: Selector[] = [];
  do {
    if (cursor.type.isError) throw new Error(`does not parse at ${cursor.from}: ${expr.slice(cursor.from)}`);
    if (cursor.type.name !== 'VectorSelector') continue;
    const node = cursor.node;
    const name = node.getChild('Identifier');
    if (!name) throw new Error(`a selector without a metric name: ${expr.slice(node.from, node.to)}`);
    const labels = (node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []).map((m) => {
      const label = m.getChild('LabelName')!;
      return expr.slice(label.from, label.to);
    });
    selectors.push({ metric: expr.slice(name.from, name.to), labels });
  } while (cursor.next());
  return selectors;
}

/** What one /metrics answer exports: each family's type, and the label names of each series name. */
export interface Exposition {
  types: Map<string, string>;
  series: Map<string, Set<string>>;
}

export function parseExposition(text: string, into: Exposition): void {
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) into.types.set(type[1]!, type[2]!);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) continue;
    const labels = into.series.get(sample[1]!) ?? new Set<string>();
    for (const [, label] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(label!);
    into.series.set(sample[1]!, labels);
  }
}

/** Whether a name a query uses is a family the processes export, or a histogram's or summary's series. */
export function isExported(name: string, exported: Exposition): boolean {
  if (exported.types.has(name)) return true;
  const suffix = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!suffix) return false;
  const type = exported.types.get(suffix[1]!);
  return type === 'histogram' || (type === 'summary' && suffix[2] !== 'bucket');
}

/** GitHub's anchor for a Markdown heading. */
export const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
