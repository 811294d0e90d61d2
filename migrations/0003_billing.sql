-- Plans and billing periods, query counters, the DPA audit trail, account exports, rate-limit counters.

ALTER TABLE tenants
  ADD COLUMN billing_interval     text NOT NULL DEFAULT 'monthly' CHECK (billing_interval IN ('monthly', 'annual')),
  ADD COLUMN period_start         timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN period_end           timestamptz NOT NULL DEFAULT now() + interval '1 month',
  -- Queries included in the current period (the plan's amount, or more after a prorated upgrade).
  ADD COLUMN period_included_queries bigint NOT NULL DEFAULT 0,
  -- A downgrade waiting for the end of the period.
  ADD COLUMN scheduled_plan       text CHECK (scheduled_plan IN ('free', 'payg', 'standard', 'enterprise')),
  ADD COLUMN scheduled_interval   text CHECK (scheduled_interval IN ('monthly', 'annual')),
  ADD COLUMN cancellation_pending boolean NOT NULL DEFAULT false,
  ADD COLUMN renewal_pending      boolean NOT NULL DEFAULT false,
  ADD COLUMN billing_details      jsonb,
  ADD COLUMN dpa_accepted_version integer;

-- Tenants created before this migration start their first period now with their plan's allowance.
UPDATE tenants SET period_included_queries = CASE plan
  WHEN 'free' THEN 1000 WHEN 'standard' THEN 50000 WHEN 'enterprise' THEN 500000 ELSE 0 END;

-- Successful queries per period: one row for the tenant as a whole (sub_tenant_id = the nil UUID)
-- and one per sub-tenant. An atomic upsert both counts and enforces hard caps.
CREATE TABLE query_counters (
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  period_start  timestamptz NOT NULL,
  queries       bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, sub_tenant_id, period_start)
);

ALTER TABLE usage_events
  ADD COLUMN input_tokens  bigint NOT NULL DEFAULT 0,
  ADD COLUMN output_tokens bigint NOT NULL DEFAULT 0;

CREATE TABLE dpa_acceptances (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  version     integer NOT NULL,
  accepted_by text,
  api_key_id  uuid,
  accepted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dpa_acceptances_tenant_idx ON dpa_acceptances (tenant_id, accepted_at);

CREATE TABLE account_exports (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

-- Instance-wide secrets (e.g. the key that signs export links), shared by every API replica.
CREATE TABLE instance_secrets (
  name       text PRIMARY KEY,
  secret     bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Shared rate-limit counters (rate-limiter-flexible's PostgreSQL store), used when several API
-- processes serve one database.
CREATE TABLE rate_limits (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
