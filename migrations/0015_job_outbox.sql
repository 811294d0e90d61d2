-- WORKFLOW_ENGINE=temporal: each job is a Temporal workflow, started after the transaction that
-- wrote the job commits. The outbox row is written in that same transaction; a dispatcher starts the
-- workflow and marks the row, so a crash in between loses nothing, and starts nothing twice (the
-- workflow id is derived from the job id, and Temporal refuses a second start of a running id).
CREATE TABLE job_outbox (
  job_id         uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  dispatched_at  timestamptz
);
CREATE INDEX job_outbox_pending ON job_outbox (created_at) WHERE dispatched_at IS NULL;
