-- Ingestion: the durable job table, stored original files, and what chunks need for filtered search.

CREATE TABLE jobs (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- NULL for platform jobs (corpus ingestion, billing runs) that belong to no single tenant.
  tenant_id         uuid REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id     uuid,
  document_id       uuid REFERENCES documents (id) ON DELETE SET NULL,
  knowledge_base_id uuid REFERENCES knowledge_bases (id) ON DELETE SET NULL,
  job_type          text NOT NULL,
  status            text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
  payload           jsonb NOT NULL DEFAULT '{}',
  error             text,
  total_chunks      integer NOT NULL DEFAULT 0,
  processed_chunks  integer NOT NULL DEFAULT 0,
  attempts          integer NOT NULL DEFAULT 0,
  max_attempts      integer NOT NULL DEFAULT 5,
  -- Not before this time: retries back off by moving it forward.
  run_at            timestamptz NOT NULL DEFAULT now(),
  -- A worker holds a job while its lease is current; an expired lease lets another take it over.
  lease_owner       text,
  lease_expires_at  timestamptz,
  -- At most one job per key (e.g. one billing transition per tenant and period).
  dedupe_key        text UNIQUE,
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  completed_at      timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_runnable_idx ON jobs (run_at) WHERE status IN ('queued', 'processing');
CREATE INDEX jobs_tenant_idx ON jobs (tenant_id, created_at);

-- The original uploaded file, kept in the database so it commits and deletes with its document
-- and every API replica can serve it.
CREATE TABLE document_files (
  document_id  uuid PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  content_type text NOT NULL,
  file_name    text,
  size_bytes   bigint NOT NULL,
  data         bytea NOT NULL
);
CREATE INDEX document_files_tenant_idx ON document_files (tenant_id);

ALTER TABLE documents
  ADD COLUMN chunk_count integer NOT NULL DEFAULT 0,
  ADD COLUMN language text,
  ADD COLUMN source text NOT NULL DEFAULT 'text' CHECK (source IN ('text', 'upload')),
  ADD COLUMN file_bytes bigint NOT NULL DEFAULT 0,
  ADD COLUMN embedder text,
  ADD COLUMN error text;

-- Document attributes that queries filter on are copied onto each chunk (documents are immutable
-- once ingested), so every filter applies inside the index scan instead of after a top-k cut.
-- A chunk becomes searchable only when its whole document is indexed.
ALTER TABLE chunks
  ADD COLUMN searchable boolean NOT NULL DEFAULT false,
  ADD COLUMN doc_title text NOT NULL DEFAULT '',
  ADD COLUMN doc_tags jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN doc_created_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX chunks_doc_tags_idx ON chunks USING gin (doc_tags jsonb_path_ops);

-- The append-only usage ledger: one row per billable event (a query, indexed chunks, ...).
CREATE TABLE usage_events (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id   uuid,
  user_id         text,
  event_type      text NOT NULL,
  quantity        bigint NOT NULL DEFAULT 1,
  cost_microcents bigint NOT NULL DEFAULT 0,
  occurred_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_events_tenant_idx ON usage_events (tenant_id, event_type, occurred_at);
