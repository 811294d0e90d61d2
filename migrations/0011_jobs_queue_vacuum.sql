-- The jobs table is a queue: a worker claims the first runnable job in run_at order through
-- jobs_runnable_idx, and every job completed since the last VACUUM leaves a dead entry at the front
-- of that index which each claim steps over. With autovacuum's default (VACUUM once 20% of the
-- table is dead) a claim cost 3.4 ms after 6,000 completions and ingestion of a large backlog slowed
-- down accordingly. A fixed threshold keeps the dead entries few, as for any queue table; on a server
-- autovacuum reads these settings, and the embedded database's maintenance does too.
ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500);
