import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { createRegistry } from '../runtime/prometheus.domain-metrics.js';

/** What the operator exports on `/metrics` (labels: the resource kind and the result; never object names). */
export interface OperatorMetrics {
  registry: Registry;
  reconciled(kind: string, result: 'success' | 'error' | 'requeue', seconds: number): void;
  /** The work queue's depth per kind, read at each scrape. */
  watchQueue(kind: string, depth: () => number): void;
  setLeader(leading: boolean): void;
}

export function createOperatorMetrics(): OperatorMetrics {
  const registry = createRegistry();
  const reconciles = new Counter({
    name: 'lore_operator_reconcile_total',
    help: 'Reconciles by resource kind and result (success, error, requeue).',
    labelNames: ['kind', 'result'],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'lore_operator_reconcile_errors_total',
    help: 'Reconciles that failed, by resource kind (they are retried with backoff).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'lore_operator_reconcile_duration_seconds',
    help: 'Duration of reconciles by resource kind.',
    labelNames: ['kind'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'lore_operator_last_successful_sync_timestamp_seconds',
    help: 'When a reconcile of this kind last succeeded (Unix seconds).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const queues = new Map<string, () => number>();
  new Gauge({
    name: 'lore_operator_queue_depth',
    help: 'Objects waiting in the work queue (including retries), by resource kind.',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      for (const [kind, depth] of queues) this.set({ kind }, depth());
    },
  });
  const leader = new Gauge({
    name: 'lore_operator_leader',
    help: '1 when this replica holds the leader lease and reconciles, else 0.',
    registers: [registry],
  });
  leader.set(0);
  return {
    registry,
    reconciled(kind, result, seconds) {
      reconciles.inc({ kind, result });
      duration.observe({ kind }, seconds);
      if (result === 'error') errors.inc({ kind });
      else lastSuccess.set({ kind }, Date.now() / 1000);
    },
    watchQueue(kind, depth) {
      queues.set(kind, depth);
      errors.inc({ kind }, 0);
    },
    setLeader(leading) {
      leader.set(leading ? 1 : 0);
    },
  };
}
