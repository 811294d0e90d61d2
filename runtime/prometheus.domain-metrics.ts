import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DomainMetrics } from '../core/ports/metrics.js';

/** A registry for one process's `/metrics` (one per app in tests), with Node's process metrics. */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The domain's metrics in a process's registry (the API's, or a Temporal worker's). Registering
 * twice in one registry throws, so each process (each test app) makes one.
 */
export function createDomainMetrics(registry: Registry): DomainMetrics {
  const registers = [registry];
  const queries = new Histogram({
    name: 'lore_query_duration_seconds',
    help: 'Retrieval time of answered queries (search legs and their translations, without HTTP, auth or metering), by retrieval mode and whether a translated leg ran.',
    labelNames: ['mode', 'translated'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const chunks = new Counter({
    name: 'lore_ingested_chunks_total',
    help: 'Chunks written to the index, by source (text, upload, corpus).',
    labelNames: ['source'],
    registers,
  });
  const attempts = new Counter({
    name: 'lore_job_attempts_total',
    help: 'Job attempts run by this process, by job type and outcome (completed, failed, retry, lease_lost).',
    labelNames: ['type', 'outcome'],
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'lore_job_attempt_duration_seconds',
    help: 'Duration of job attempts run by this process, by job type and outcome.',
    labelNames: ['type', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  });
  const jobs = new Counter({
    name: 'lore_jobs_total',
    help: 'Jobs finished for good by this process, by job type and outcome (completed, failed).',
    labelNames: ['type', 'outcome'],
    registers,
  });
  const jobDuration = new Histogram({
    name: 'lore_job_duration_seconds',
    help: "Time from a job's first attempt to its end (every attempt and retry wait), by job type and outcome.",
    labelNames: ['type', 'outcome'],
    // Callback deliveries retry for about a day.
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 36 * 3600],
    registers,
  });
  const rejections = new Counter({
    name: 'lore_rate_limit_rejections_total',
    help: 'Requests refused with 429, by the limit that refused them.',
    labelNames: ['scope'],
    registers,
  });
  const translations = new Histogram({
    name: 'lore_translation_duration_seconds',
    help: 'Translation calls to an engine, by engine and outcome (translated, failed).',
    labelNames: ['engine', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const translationFailures = new Counter({
    name: 'lore_translation_failures_total',
    help: 'Failed translation calls, by engine and reason (unavailable: not reachable or refusing; failed: crashed, timed out or answered badly).',
    labelNames: ['engine', 'reason'],
    registers,
  });
  const callbacks = new Counter({
    name: 'lore_callback_deliveries_total',
    help: 'Add-on callback delivery attempts, by outcome (delivered, retry, failed, blocked).',
    labelNames: ['outcome'],
    registers,
  });
  const callbackDuration = new Histogram({
    name: 'lore_callback_delivery_duration_seconds',
    help: 'Duration of add-on callback delivery attempts, by outcome.',
    labelNames: ['outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  return {
    queryServed(mode, translated, seconds) {
      queries.observe({ mode, translated: String(translated) }, seconds);
    },
    chunksIngested(source, count) {
      chunks.inc({ source }, count);
    },
    jobAttempted(type, outcome, seconds) {
      attempts.inc({ type, outcome });
      attemptDuration.observe({ type, outcome }, seconds);
    },
    jobFinished(type, outcome, seconds) {
      jobs.inc({ type, outcome });
      jobDuration.observe({ type, outcome }, seconds);
    },
    rateLimited(scope) {
      rejections.inc({ scope });
    },
    translated(engine, seconds, failure) {
      translations.observe({ engine, outcome: failure ? 'failed' : 'translated' }, seconds);
      if (failure) translationFailures.inc({ engine, reason: failure });
    },
    callbackDelivered(outcome, seconds) {
      callbacks.inc({ outcome });
      callbackDuration.observe({ outcome }, seconds);
    },
  };
}
