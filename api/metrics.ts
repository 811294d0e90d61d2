import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { errors } from '../core/errors.js';
import type { Logger } from 'pino';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/** A registry per app instance (no global state), with process metrics and HTTP metrics. */
export function createMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
