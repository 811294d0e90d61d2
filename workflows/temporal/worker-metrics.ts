import { type Server, createServer } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the worker exports to Prometheus: process metrics, and job attempts by type and outcome. */
export interface WorkerMetrics {
  registry: Registry;
  /** Records one attempt of a job (outcome: completed, failed, retry, lease_lost, skipped). */
  attempt(type: string, outcome: string, seconds: number): void;
}

export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const attempts = new Counter({
    name: 'lore_job_attempts_total',
    help: 'Job attempts run by this worker, by job type and outcome.',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'lore_job_attempt_duration_seconds',
    help: 'Duration of job attempts run by this worker, by job type and outcome.',
    labelNames: ['type', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  return {
    registry,
    attempt(type, outcome, seconds) {
      attempts.inc({ type, outcome });
      duration.observe({ type, outcome }, seconds);
    },
  };
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
