-- The transcription and report add-ons (spec §4): one row per add-on job, beside its row in jobs.
--
-- The input (audio bytes, or the transcript) is kept only until the job has used it; the result is
-- kept until result_expires_at so a caller whose callback endpoint was down can fetch it; the
-- callback secret is kept encrypted (AES-256-GCM under an instance secret) only until delivery has
-- ended (delivered or given up). Rows go with their job, tenant or sub-tenant.
CREATE TABLE addon_requests (
  job_id                 uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  tenant_id              uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id          uuid,
  addon                  text NOT NULL CHECK (addon IN ('transcription', 'report_generation')),
  -- transcription: the language asked for ('auto' or a code); reports: detected from the transcript.
  language               text,
  audio                  bytea,
  audio_seconds          double precision,
  transcript             text,
  -- Transcription: the segments transcribed so far, so a retried job resumes where it stopped.
  segments               jsonb NOT NULL DEFAULT '[]',
  result                 jsonb,
  result_expires_at      timestamptz,
  callback_url           text,
  callback_secret        bytea,
  -- none (no callback_url), pending, delivered, failed (given up or refused).
  delivery_status        text NOT NULL CHECK (delivery_status IN ('none', 'pending', 'delivered', 'failed')),
  delivery_attempts      integer NOT NULL DEFAULT 0,
  last_status_code       integer,
  last_delivery_error    text,
  delivered_at           timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX addon_requests_tenant_idx ON addon_requests (tenant_id, created_at);
CREATE INDEX addon_requests_expiry_idx ON addon_requests (result_expires_at) WHERE result IS NOT NULL;

-- Every delivery attempt of a callback, for the job's delivery state and for support.
CREATE TABLE callback_attempts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id        uuid NOT NULL REFERENCES addon_requests (job_id) ON DELETE CASCADE,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  attempt       integer NOT NULL,
  status_code   integer,
  error         text,
  duration_ms   integer NOT NULL,
  attempted_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (job_id, attempt)
);

-- Audio seconds transcribed, metered per transcription job (reports meter input/output tokens).
ALTER TABLE usage_events ADD COLUMN audio_seconds double precision NOT NULL DEFAULT 0;
