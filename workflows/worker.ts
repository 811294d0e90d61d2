/**
 * `npm run worker`: the Temporal worker (WORKFLOW_ENGINE=temporal). It polls one task queue per job
 * family (documents, add-ons, billing) and runs the job workflow and its activities, over the same
 * services and job definitions as the API (`createRuntime`, `createActivities`). It serves
 * Prometheus metrics and a liveness probe on PORT (`/metrics`, `/health/live`). SIGTERM and SIGINT
 * stop polling, let running activities finish, and close the database.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { ConfigError, loadConfig } from '../core/config.js';
import { prepareSchema } from '../core/db/migrator.js';
import { openDatabase } from '../core/db/open.js';
import { createLogger } from '../core/logger.js';
import { createRuntime } from '../runtime/runtime.js';
import { createActivities } from './activities.js';
import { createJobActivities } from './temporal/job.activities.js';
import { connectionOptions } from './temporal/temporal-client.js';
import { TASK_QUEUE_FAMILIES } from './temporal/temporal.engine.js';
import { WORKFLOWS_PATH } from './temporal/workflows-path.js';
import { createWorkerMetrics, serveWorkerMetrics } from './temporal/worker-metrics.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.workflowEngine.kind !== 'temporal') throw new ConfigError('npm run worker needs WORKFLOW_ENGINE=temporal (and TEMPORAL_ADDRESS).');
  const temporalConfig = config.workflowEngine;
  const log = createLogger(config);
  const db = await openDatabase(config);
  await prepareSchema(db, config.migrateOnStart);
  // One registry for the process: the services' metrics and the job attempts go to it.
  const metrics = createWorkerMetrics();
  const runtime = await createRuntime(db, config, log, { metrics: metrics.domain });
  // Jobs the activities enqueue (a callback delivery after a transcription) are started from here too.
  await runtime.jobs.start();
  const metricsServer = serveWorkerMetrics(metrics, config.port, config.host);
  const activities = createJobActivities({
    metrics: metrics.domain,
    db,
    definitions: createActivities(runtime.services),
    options: { leaseSeconds: config.jobs.leaseSeconds, retryBaseSeconds: config.jobs.retryBaseSeconds, retryMaxSeconds: 300 },
    log: log.child({ component: 'worker' }),
  });
  const connection = await NativeConnection.connect(connectionOptions(temporalConfig));
  const workers = await Promise.all(
    TASK_QUEUE_FAMILIES.map((family) =>
      Worker.create({
        connection,
        namespace: temporalConfig.namespace,
        taskQueue: `${temporalConfig.taskQueue}-${family}`,
        workflowsPath: WORKFLOWS_PATH,
        activities,
        maxConcurrentActivityTaskExecutions: config.jobs.concurrency,
      }),
    ),
  );
  log.info({ address: temporalConfig.address, namespace: temporalConfig.namespace, queues: TASK_QUEUE_FAMILIES }, 'Temporal worker running');
  const stop = () => workers.forEach((w) => w.shutdown());
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await Promise.all(workers.map((w) => w.run()));
  } finally {
    metricsServer.close();
    await runtime.close();
    await connection.close();
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `The worker stopped: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
