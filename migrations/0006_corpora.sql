-- Platform corpora: the records the operator loads, what the query path needs to choose and size
-- them, and each tenant's acceptance of a corpus's data-use agreement.

-- 'tenant' is the `source` of a tenant's own results, so no corpus may take it as its slug.
ALTER TABLE corpora
  ADD CONSTRAINT corpora_slug_not_tenant CHECK (slug <> 'tenant'),
  ADD CONSTRAINT corpora_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  ADD CONSTRAINT corpora_plans_known CHECK (plans <@ ARRAY['free', 'payg', 'standard', 'enterprise']::text[]),
  -- Indexed chunks of the corpus, maintained by ingestion: queries decide between an exact scan and
  -- the HNSW index from it without counting rows.
  ADD COLUMN chunk_count integer NOT NULL DEFAULT 0,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- The source of truth of a corpus: one row per record, keyed by the operator's own id, so loading a
-- record again replaces it. platform_chunks are derived from these rows by corpus_ingestion jobs.
CREATE TABLE corpus_records (
  corpus_id        uuid NOT NULL REFERENCES corpora (id) ON DELETE CASCADE,
  source_record_id text NOT NULL CHECK (char_length(source_record_id) BETWEEN 1 AND 500),
  content          text NOT NULL,
  content_bytes    bigint NOT NULL,
  metadata         jsonb NOT NULL DEFAULT '{}',
  -- pending: waiting for `job_id`; ready: its chunks are searchable; failed: the job gave up (no chunks).
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
  chunk_count      integer NOT NULL DEFAULT 0,
  -- The corpus_ingestion job that indexes the current content (a reload hands the record to a new job).
  job_id           uuid REFERENCES jobs (id) ON DELETE SET NULL,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (corpus_id, source_record_id)
);
CREATE INDEX corpus_records_job_idx ON corpus_records (job_id) WHERE status = 'pending';

-- A tenant's acceptance of a corpus's data-use agreement, for the tenant and all its sub-tenants:
-- who (X-Accepted-By), when, and with which key. The first acceptance is the one kept.
CREATE TABLE corpus_dua_acceptances (
  tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  corpus_id   uuid NOT NULL REFERENCES corpora (id) ON DELETE CASCADE,
  accepted_by text CHECK (char_length(accepted_by) <= 200),
  api_key_id  uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  accepted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, corpus_id)
);
CREATE INDEX corpus_dua_acceptances_corpus_idx ON corpus_dua_acceptances (corpus_id);

-- Corpus jobs carry their corpus in the payload (jobs.tenant_id is NULL for them).
CREATE INDEX jobs_corpus_idx ON jobs ((payload ->> 'corpus_id'), created_at) WHERE job_type = 'corpus_ingestion';
