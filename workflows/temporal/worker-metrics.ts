import { type Server, createServer } from 'node:http';
import type { Registry } from 'prom-client';
import type { DomainMetrics } from '../../core/ports/metrics.js';
import { createDomainMetrics, createRegistry } from '../../runtime/prometheus.domain-metrics.js';

/**
 * What the worker exports to Prometheus: process metrics, and the domain metrics of what it runs
 * (job attempts by type and outcome, chunks ingested, callbacks delivered, ...).
 */
export interface WorkerMetrics {
  registry: Registry;
  /** For the worker's runtime and its job activities. */
  domain: DomainMetrics;
}

export function createWorkerMetrics(): WorkerMetrics {
  const registry = createRegistry();
  return { registry, domain: createDomainMetrics(registry) };
}

/** Serves `/metrics` and `/health/live` for the worker (its pods have no API server). */
export function serveWorkerMetrics(metrics: WorkerMetrics, port: number, host: string): Server {
  return createServer((req, res) => {
    if (req.url === '/health/live') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  }).listen(port, host);
}
