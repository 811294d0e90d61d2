import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../core/config.js';
import { prepareSchema } from '../core/db/migrator.js';
import { openDatabase } from '../core/db/open.js';
import { createLogger } from '../core/logger.js';
import { ensureAdminToken, forgetServer, recordServer, runningServer } from '../core/instance/data-dir.js';
import { createApp } from './app.js';
import { createDomainMetrics, createRegistry } from '../runtime/prometheus.domain-metrics.js';
import { createRuntime } from '../runtime/runtime.js';
import { EXIT_RESTART } from './supervisor.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger(config);
  const embedded = config.database.kind === 'embedded';

  if (embedded) {
    const other = await runningServer(config.dataDir);
    if (other) {
      console.error(`Another Lore server (pid ${other.pid}, port ${other.port}) is using DATA_DIR ${config.dataDir}.`);
      process.exit(1);
    }
  }

  let adminToken = config.adminToken;
  if (!adminToken && embedded) {
    const { token, created, file } = await ensureAdminToken(config.dataDir);
    adminToken = token;
    // Output ends up in log stores: it says where the token is, never what it is.
    if (created) log.info({ file }, `admin token written to ${file}`);
  } else if (!adminToken) {
    log.warn('ADMIN_TOKEN is not set: the internal admin API (/internal/v1) is disabled.');
  }

  const db = await openDatabase(config);
  const applied = await prepareSchema(db, config.migrateOnStart);
  if (applied.length) log.info({ applied }, 'migrations applied');

  // One registry for the process: the services' metrics, then the app's HTTP metrics, go to it.
  const registry = createRegistry();
  const runtime = await createRuntime(db, config, log, { metrics: createDomainMetrics(registry) });
  const { embedder } = runtime.services.adapters;
  const stale = await runtime.services.health.chunksFromOtherEmbedders(embedder.id);
  if (stale.length) {
    log.warn(
      { configured: embedder.id, stale },
      'some chunks were embedded by another model: vector search skips them until their documents are ingested again',
    );
  }
  if (config.jobs.enabled) {
    // Periods that ended while Lore was down move on now (each transition happens once).
    await runtime.services.billingPeriods.runDueTransitions();
    await runtime.jobs.start();
  }
  runtime.maintenance?.start();
  const app = createApp({ config: { ...config, adminToken }, services: runtime.services, log, version, registry });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  runtime.services.portal.listeningOn(port);
  if (embedded) await recordServer(config.dataDir, { pid: process.pid, port });

  let stopping = false;
  /** Stops taking requests, lets running ones finish, releases the job engine and closes the database. */
  const stop = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down');
    server.close(() => {
      void (async () => {
        await runtime.close();
        await db.close();
        if (embedded) await forgetServer(config.dataDir);
        process.exit(exitCode);
      })();
    });
    server.closeIdleConnections();
    // Long-lived streams (MCP over SSE) never go idle: they get a short grace period, then close.
    setTimeout(() => server.closeAllConnections(), 2_000).unref();
    setTimeout(() => process.exit(exitCode || 1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  // Last resorts (every request and job handles its own errors; these catch what slipped through).
  // A stray rejected promise changes no state by itself: it is logged and the process goes on. An
  // uncaught exception may have left any state half-changed, so the process stops cleanly (the
  // database closed, jobs left to their leases) and exits with EXIT_RESTART for its supervisor.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception: stopping so the supervisor restarts Lore');
    stop('uncaughtException', EXIT_RESTART);
  });
  // Announced once the handlers above are in place: a supervisor (or a test) that stops the server
  // as soon as it reads this line gets a clean shutdown, never the signal's default exit.
  log.info({ port, pid: process.pid, database: config.database.kind, dataDir: embedded ? config.dataDir : undefined }, 'Lore is listening');
}

main().catch((err: unknown) => {
  console.error('Lore failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
