-- Workers claim jobs in queue order, ORDER BY run_at, created_at. The runnable-jobs index held
-- run_at alone, so every claim sorted the due jobs of equal run_at (an incremental sort reads at
-- least 32 index entries for the first row); with created_at in the index, a claim reads the queue in
-- order and stops at the first job it can take. A batch claim (several first attempts of one type)
-- continues from its first job's place in the index instead of from the front of the queue, where
-- the entries of jobs completed since the last VACUUM lie.
CREATE INDEX jobs_queue_idx ON jobs (run_at, created_at) WHERE status IN ('queued', 'processing');
DROP INDEX jobs_runnable_idx;
