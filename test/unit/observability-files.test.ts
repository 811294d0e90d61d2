import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { createMetrics } from '../../api/metrics.js';
import { createOperatorMetrics } from '../../operator/operator-metrics.js';
import { createDomainMetrics, createRegistry } from '../../runtime/prometheus.domain-metrics.js';
import { createWorkerMetrics } from '../../workflows/temporal/worker-metrics.js';

const DASHBOARD = new URL('../../charts/lore/files/grafana-dashboard.json', import.meta.url);
const RULES = new URL('../../charts/lore/files/prometheus-rules.yaml', import.meta.url);

/**
 * Every series name Lore's processes export (histograms with their suffixes): the API's registry
 * (process, domain and HTTP metrics, the job backlog), the worker's and the operator's.
 */
async function exportedSeries(): Promise<Set<string>> {
  const api = createRegistry();
  createDomainMetrics(api);
  createMetrics(api, () => Promise.resolve([{ job_type: 'ingestion', waiting: 1, oldest_seconds: 2 }]));
  const names = new Set<string>();
  for (const registry of [api, createWorkerMetrics().registry, createOperatorMetrics().registry]) {
    for (const metric of await registry.getMetricsAsJSON()) {
      names.add(metric.name);
      if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
    }
  }
  return names;
}

/** The metric names a PromQL expression reads (Lore's, and the Node.js process metrics). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:lore|process|nodejs)_[A-Za-z0-9_]+)\b/g)].map((m) => m[1]!);
}

describe('the Grafana dashboard and the alert rules (charts/lore/files/)', () => {
  it('the dashboard is a valid Grafana dashboard: uid, title, schema version, panels on the 24-column grid with queries', async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      uid: string;
      title: string;
      schemaVersion: number;
      panels: Array<{ id: number; type: string; title: string; gridPos: { x: number; y: number; w: number; h: number }; targets: Array<{ refId: string; expr: string }> }>;
      templating: { list: Array<{ name: string }> };
    };
    assert.match(dashboard.uid, /^[a-z0-9-]{1,40}$/);
    assert.ok(dashboard.title);
    assert.ok(Number.isInteger(dashboard.schemaVersion) && dashboard.schemaVersion >= 30);
    assert.ok(dashboard.panels.length >= 8);
    assert.equal(new Set(dashboard.panels.map((p) => p.id)).size, dashboard.panels.length, 'panel ids are unique');
    for (const p of dashboard.panels) {
      assert.ok(p.title && p.type, `panel ${p.id}`);
      assert.ok(p.gridPos.x >= 0 && p.gridPos.w > 0 && p.gridPos.x + p.gridPos.w <= 24, `panel ${p.id} fits the grid`);
      assert.ok(p.targets.length >= 1 && p.targets.every((t) => t.expr.trim() && t.refId), `panel ${p.id} queries something`);
    }
    assert.deepEqual(dashboard.templating.list.map((v) => v.name), ['datasource', 'namespace']);
  });

  it('every metric the dashboard and the alerts use is one Lore exports', async () => {
    const exported = await exportedSeries();
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const rules = parse(await readFile(RULES, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string; for: string; labels: { severity: string }; annotations: { summary: string } }> }> };
    const uses: Array<[string, string]> = [
      ...dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricsIn(t.expr).map((m): [string, string] => [p.title, m]))),
      ...rules.groups.flatMap((g) => g.rules.flatMap((r) => metricsIn(r.expr).map((m): [string, string] => [r.alert, m]))),
    ];
    assert.ok(uses.length >= 15);
    for (const [where, metric] of uses) assert.ok(exported.has(metric), `${where} uses ${metric}, which Lore does not export`);
    for (const rule of rules.groups.flatMap((g) => g.rules)) {
      assert.match(rule.alert, /^Lore[A-Za-z]+$/);
      assert.match(rule.for, /^\d+m$/);
      assert.ok(['warning', 'critical'].includes(rule.labels.severity));
      assert.ok(rule.annotations.summary);
    }
  });
});
