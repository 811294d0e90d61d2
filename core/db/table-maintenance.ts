import type { Logger } from 'pino';
import type { Database } from './database.js';

/**
 * Autovacuum for the embedded database. A PostgreSQL server's autovacuum daemon keeps planner
 * statistics fresh and clears dead rows; PGlite runs no background processes, so without this
 * the planner never learns how many chunks a tenant has (it assumed one, and chose to recheck the
 * keyword query against every chunk of a knowledge base: ~6× slower keyword search at 10k chunks)
 * and deleted chunks stay in the HNSW graph.
 *
 * The thresholds are autovacuum's defaults: ANALYZE once 50 + 10% of a table's rows changed,
 * VACUUM once 50 + 20% are dead (or what the table's autovacuum_vacuum_threshold and
 * autovacuum_vacuum_scale_factor say: the jobs queue vacuums at 500 dead rows) or 1,000 + 20% were
 * inserted since the last VACUUM (which also
 * merges the keyword indexes' GIN pending lists and marks pages all-visible). The change counters
 * restart with the process, so a table whose size on disk grew by more than 10% since its last
 * ANALYZE counts as changed too.
 */
export class TableMaintenance {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.run();
    this.timer = setInterval(() => void this.run(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass: vacuums and analyzes the tables that need it. Never throws (failures are logged). */
  run(): Promise<void> {
    this.running ??= this.pass()
      .catch((err: unknown) => this.log.warn({ err }, 'table maintenance failed; it will be tried again'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    // Activity counts reach the statistics views at most once a second unless a flush is forced.
    await this.db.query('SELECT pg_stat_force_next_flush()');
    // A table's own autovacuum settings (reloptions) replace the defaults, as for autovacuum.
    const { rows } = await this.db.query<{ table: string; vacuum: boolean; analyze: boolean }>(
      `WITH opts AS (
         SELECT c.oid,
                (SELECT o.option_value::float8 FROM pg_options_to_table(c.reloptions) o
                 WHERE o.option_name = 'autovacuum_vacuum_threshold') AS vacuum_threshold,
                (SELECT o.option_value::float8 FROM pg_options_to_table(c.reloptions) o
                 WHERE o.option_name = 'autovacuum_vacuum_scale_factor') AS vacuum_scale
         FROM pg_class c)
       SELECT format('%I.%I', s.schemaname, s.relname) AS table,
              s.n_dead_tup > COALESCE(o.vacuum_threshold, 50) + COALESCE(o.vacuum_scale, 0.2) * greatest(c.reltuples, 0)
                OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) AS vacuum,
              s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
                OR pg_relation_size(c.oid) / current_setting('block_size')::int > 8 + 1.1 * greatest(c.relpages, 0) AS analyze
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid JOIN opts o ON o.oid = c.oid
       ORDER BY s.relname`,
    );
    for (const t of rows) {
      if (!t.vacuum && !t.analyze) continue;
      const started = Date.now();
      // VACUUM cannot run inside a transaction block; each statement here runs on its own.
      await this.db.exec(`${t.vacuum ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${t.table}`);
      this.log.debug({ table: t.table, vacuum: t.vacuum, ms: Date.now() - started }, 'table maintenance');
    }
  }
}
