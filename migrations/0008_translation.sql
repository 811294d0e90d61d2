-- Translation: a cache of translations per tenant (and sub-tenant), characters in the usage ledger,
-- and translation settings of sub-tenants (tenants and knowledge bases have theirs since 0001).

CREATE TABLE translation_cache (
  tenant_id       uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id   uuid,
  -- SHA-256 (hex) of engine, source language, target language and text: the source text is not kept.
  key_hash        text NOT NULL,
  translated_text text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (tenant_id, sub_tenant_id) REFERENCES sub_tenants (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT translation_cache_key UNIQUE NULLS NOT DISTINCT (tenant_id, sub_tenant_id, key_hash)
);
CREATE INDEX translation_cache_age_idx ON translation_cache (tenant_id, created_at);

ALTER TABLE usage_events
  ADD COLUMN input_chars  bigint NOT NULL DEFAULT 0,
  ADD COLUMN output_chars bigint NOT NULL DEFAULT 0;

ALTER TABLE sub_tenants ADD COLUMN translation_config jsonb NOT NULL DEFAULT '{}';
