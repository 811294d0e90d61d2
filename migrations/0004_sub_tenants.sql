-- Enterprise sub-tenants, their end users' preferences and monthly activity.

CREATE TABLE sub_tenants (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id                   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name                        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  external_id                 text CHECK (char_length(external_id) BETWEEN 1 AND 200),
  -- Limits inside the parent's plan limits; NULL: only the parent's limit applies.
  max_total_chunks            bigint CHECK (max_total_chunks >= 0),
  max_knowledge_bases         integer CHECK (max_knowledge_bases >= 0),
  max_documents               integer CHECK (max_documents >= 0),
  max_document_size_bytes     bigint CHECK (max_document_size_bytes >= 0),
  query_rate_limit_per_min    integer CHECK (query_rate_limit_per_min >= 1),
  included_queries_per_period bigint CHECK (included_queries_per_period >= 0),
  storage_quota_bytes         bigint CHECK (storage_quota_bytes >= 0),
  per_user_rate_limit_per_min integer CHECK (per_user_rate_limit_per_min >= 1),
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, external_id),
  UNIQUE (tenant_id, id)
);

-- Per-user query rate limit of the tenant's own end users (sub-tenants may set their own).
ALTER TABLE tenants ADD COLUMN per_user_rate_limit_per_min integer CHECK (per_user_rate_limit_per_min >= 1);

-- A sub-tenant's rows go with it, and can only ever point at a sub-tenant of the same tenant.
ALTER TABLE api_keys ADD FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE knowledge_bases ADD FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE documents ADD FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE chunks ADD FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE jobs ADD FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE;

CREATE TABLE end_user_preferences (
  tenant_id          uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id      uuid NOT NULL REFERENCES sub_tenants (id) ON DELETE CASCADE,
  user_id            text NOT NULL CHECK (char_length(user_id) BETWEEN 1 AND 256),
  translation_config jsonb NOT NULL DEFAULT '{}',
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sub_tenant_id, user_id)
);

-- End users seen per month (for active-user counts); sub_tenant_id is the nil UUID for the
-- tenant's own users.
CREATE TABLE active_users (
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  month         date NOT NULL,
  user_id       text NOT NULL,
  PRIMARY KEY (tenant_id, sub_tenant_id, month, user_id)
);
