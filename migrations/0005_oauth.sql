-- OAuth 2.1 client-credentials applications for the MCP endpoint, the initial access tokens support
-- issues for RFC 7591 registration, and the denylist of revoked access tokens.

-- An application of a tenant (optionally of one of its sub-tenants). Its id is the client_id.
CREATE TABLE oauth_clients (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- The foreign key to sub_tenants is added with the sub-tenant work.
  sub_tenant_id uuid,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  -- What the client may request; a broader scope includes the narrower ones.
  scopes        text[] NOT NULL CHECK (cardinality(scopes) >= 1 AND scopes <@ ARRAY['mcp:read', 'mcp:write', 'mcp:admin']),
  -- SHA-256 of the client secret, hex. The secret itself is never stored.
  secret_hash   text NOT NULL UNIQUE,
  -- 'admin': registered by support through the internal API; 'registration': RFC 7591.
  registered_by text NOT NULL CHECK (registered_by IN ('admin', 'registration')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- When the client last obtained a token (written at most once a minute).
  last_used_at  timestamptz,
  -- A revoked client can neither obtain tokens nor use the ones it holds.
  revoked_at    timestamptz
);
CREATE INDEX oauth_clients_tenant_idx ON oauth_clients (tenant_id, created_at);

-- Single-use tokens that let one application register itself at /oauth/register (no open registration).
CREATE TABLE oauth_initial_access_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  sub_tenant_id uuid,
  -- The most the registered client may hold.
  scopes        text[] NOT NULL CHECK (cardinality(scopes) >= 1 AND scopes <@ ARRAY['mcp:read', 'mcp:write', 'mcp:admin']),
  token_hash    text NOT NULL UNIQUE,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  used_at       timestamptz,
  client_id     uuid REFERENCES oauth_clients (id) ON DELETE SET NULL
);
CREATE INDEX oauth_initial_access_tokens_tenant_idx ON oauth_initial_access_tokens (tenant_id);

-- Access tokens revoked before they expire (RFC 7009), by their jti. A row is useless once the
-- token has expired, so rows past expires_at are deleted.
CREATE TABLE oauth_revoked_tokens (
  jti        text PRIMARY KEY,
  client_id  uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_revoked_tokens_expiry_idx ON oauth_revoked_tokens (expires_at);
CREATE INDEX oauth_revoked_tokens_client_idx ON oauth_revoked_tokens (client_id);
