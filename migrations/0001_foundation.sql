-- Foundation: tenants, API keys, knowledge bases, and the chunk tables behind the vector indexes.
-- Every tenant-owned row carries tenant_id; rows of a sub-tenant also carry sub_tenant_id.

CREATE TABLE tenants (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name               text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  email              text,
  plan               text NOT NULL CHECK (plan IN ('free', 'payg', 'standard', 'enterprise')),
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  addons             text[] NOT NULL DEFAULT '{}',
  anonymize_default  boolean NOT NULL DEFAULT false,
  translation_config jsonb NOT NULL DEFAULT '{}',
  -- Per-tenant overrides of plan limits (Enterprise "custom" storage, "unlimited" knowledge bases).
  limit_overrides    jsonb NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id uuid,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  role          text NOT NULL CHECK (role IN ('read', 'write', 'admin')),
  -- SHA-256 of the whole key, hex. The key itself is never stored.
  key_hash      text NOT NULL UNIQUE,
  -- The last four characters, so a person can tell keys apart in a listing.
  key_hint      text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id, created_at);

CREATE TABLE knowledge_bases (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id      uuid,
  name               text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  dimensions         integer NOT NULL CHECK (dimensions BETWEEN 1 AND 4096),
  translation_config jsonb NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_bases_tenant_idx ON knowledge_bases (tenant_id, created_at);

CREATE TABLE documents (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id     uuid,
  knowledge_base_id uuid NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
  title             text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 500),
  content           text NOT NULL,
  -- UTF-8 size of content: what counts against the storage quota.
  content_bytes     bigint NOT NULL,
  tags              jsonb NOT NULL DEFAULT '{}',
  anonymized        boolean NOT NULL DEFAULT false,
  status            text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'ready', 'failed')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX documents_kb_idx ON documents (knowledge_base_id, created_at);
CREATE INDEX documents_tenant_idx ON documents (tenant_id);

-- Embeddings are stored as real[] so one schema serves every PostgreSQL: where pgvector exists,
-- HNSW indexes are built on a cast of the column (see below); elsewhere queries scan exactly.
CREATE TABLE chunks (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id     uuid,
  knowledge_base_id uuid NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
  document_id       uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  chunk_index       integer NOT NULL,
  content           text NOT NULL,
  language          text,
  dimensions        integer NOT NULL,
  embedding         real[] NOT NULL,
  embedder          text NOT NULL,
  tsv               tsvector NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (document_id, chunk_index)
);
CREATE INDEX chunks_tenant_kb_idx ON chunks (tenant_id, knowledge_base_id);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);

-- Shared collections owned by the instance, not by a tenant.
CREATE TABLE corpora (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug          text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name          text NOT NULL,
  license_info  text NOT NULL DEFAULT '',
  requires_dua  boolean NOT NULL DEFAULT false,
  plans         text[] NOT NULL DEFAULT '{}',
  dimensions    integer NOT NULL DEFAULT 1024 CHECK (dimensions BETWEEN 1 AND 4096),
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE platform_chunks (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  corpus_id        uuid NOT NULL REFERENCES corpora (id) ON DELETE CASCADE,
  source_record_id text NOT NULL,
  chunk_index      integer NOT NULL,
  content          text NOT NULL,
  metadata         jsonb NOT NULL DEFAULT '{}',
  language         text,
  dimensions       integer NOT NULL,
  embedding        real[] NOT NULL,
  embedder         text NOT NULL,
  tsv              tsvector NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (corpus_id, source_record_id, chunk_index)
);
CREATE INDEX platform_chunks_tsv_idx ON platform_chunks USING gin (tsv);

-- Extensions and vector indexes where the server provides them (PGlite always does). The HNSW
-- indexes cover the default dimension (1024); the vector index adapter adds one per further
-- dimension in use. Without pgvector, /health/index reports the indexes as missing.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
    EXECUTE 'CREATE INDEX idx_chunks_embedding ON chunks USING hnsw '
      || '((embedding::vector(1024)) vector_cosine_ops) WHERE dimensions = 1024';
    EXECUTE 'CREATE INDEX idx_platform_chunks_embedding ON platform_chunks USING hnsw '
      || '((embedding::vector(1024)) vector_cosine_ops) WHERE dimensions = 1024';
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'Lore: no privilege to create extensions; vector indexes are not created.';
END
$$;
