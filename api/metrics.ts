import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { errors } from '../core/errors.js';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/** What the job-backlog gauges read when Prometheus scrapes. */
export type BacklogSource = () => Promise<Array<{ job_type: string; waiting: number; oldest_seconds: number }>>;

/** What the query-load gauges read when Prometheus scrapes (see QueryService). */
export type QueryLoadSource = () => { active: number; waiting: number };

/**
 * The HTTP metrics, the job backlog and the query load, added to the process's registry (which
 * holds the process and domain metrics too: `runtime/prometheus.domain-metrics.ts`); one app per registry.
 */
export function createMetrics(registry: Registry, backlog?: BacklogSource, queryLoad?: QueryLoadSource): HttpMetrics {
  if (backlog) registerBacklogGauges(registry, backlog);
  if (queryLoad) registerQueryLoadGauges(registry, queryLoad);
  return {
    registry,
    requests: new Counter({
      name: 'lore_http_requests_total',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'lore_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}

/**
 * `lore_jobs_waiting{type}` and `lore_jobs_oldest_waiting_seconds{type}`: due jobs no worker has
 * taken yet, read from the jobs table at each scrape (so every API replica reports the shared queue;
 * a backlog that grows or ages means the workers are too few or stuck).
 */
function registerBacklogGauges(registry: Registry, backlog: BacklogSource): void {
  let pending: ReturnType<BacklogSource> | undefined;
  // One query per scrape for both gauges.
  const read = () => (pending ??= backlog().finally(() => setTimeout(() => (pending = undefined), 0)));
  new Gauge({
    name: 'lore_jobs_waiting',
    help: 'Due jobs waiting for a worker, by job type.',
    labelNames: ['type'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await read().catch(() => [])) this.set({ type: row.job_type }, row.waiting);
    },
  });
  new Gauge({
    name: 'lore_jobs_oldest_waiting_seconds',
    help: 'How long the oldest due job of each type has waited for a worker.',
    labelNames: ['type'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await read().catch(() => [])) this.set({ type: row.job_type }, row.oldest_seconds);
    },
  });
}

/**
 * `lore_queries_active` and `lore_queries_waiting`: queries this process is answering, and those
 * waiting for their turn (QUERY_CONCURRENCY). Waiting ones that stay means the process is saturated.
 */
function registerQueryLoadGauges(registry: Registry, load: QueryLoadSource): void {
  new Gauge({
    name: 'lore_queries_active',
    help: 'Queries this process is answering.',
    registers: [registry],
    collect() {
      this.set(load().active);
    },
  });
  new Gauge({
    name: 'lore_queries_waiting',
    help: 'Queries waiting for their turn in this process (QUERY_CONCURRENCY).',
    registers: [registry],
    collect() {
      this.set(load().waiting);
    },
  });
}

/**
 * Observes every request when its response finishes, labelled by route template (never the raw
 * URL, whose ids would explode the label set), and writes one JSON log line without bodies or keys.
 */
export function observeRequests(metrics: HttpMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (res.locals.routeTemplate as string | undefined) ?? 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, seconds);
      (res.locals.log as Logger).info(
        { method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    });
    next();
  };
}

/** GET /metrics in Prometheus' text format; with a token configured, only for `Authorization: Bearer <token>`. */
export function metricsEndpoint(metrics: HttpMetrics, token: string | undefined) {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return async (req: Request, res: Response): Promise<void> => {
    res.locals.routeTemplate = '/metrics';
    if (expected) {
      const given = Buffer.from(req.get('authorization') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw errors.unauthorized('The metrics token is required.');
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}
