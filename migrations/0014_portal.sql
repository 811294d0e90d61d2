-- The web portal (spec §5): people who sign in with an e-mail address and a password, their
-- server-side sessions, the single-use links that set or reset a password, and what the
-- secret-scanning partner endpoint reported about leaked API keys.
--
-- Secrets are stored only as digests: session ids and link tokens as SHA-256 (they are 256 random
-- bits, so a fast digest is enough), passwords as scrypt hashes.
CREATE TABLE portal_users (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- Lower-cased; one account per address on the instance, so sign-in needs nothing else.
  email               text NOT NULL UNIQUE,
  role                text NOT NULL CHECK (role IN ('read', 'write', 'admin')),
  -- NULL until the person follows their set-password link.
  password_hash       text,
  -- The language of the e-mails Lore sends them (one of the eight), from their browser.
  language            text NOT NULL DEFAULT 'en',
  created_at          timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz
);
CREATE INDEX portal_users_tenant ON portal_users (tenant_id);

CREATE TABLE portal_sessions (
  id_hash       text PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES portal_users (id) ON DELETE CASCADE,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- Sent back with every state-changing request (form field or X-CSRF-Token header).
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  -- Absolute expiry; the idle expiry is last_seen_at plus the configured idle time.
  expires_at    timestamptz NOT NULL
);
CREATE INDEX portal_sessions_user ON portal_sessions (user_id);
-- Expired sessions are deleted at sign-in: found through this index, not by a scan.
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);

-- 'reset': requested on the sign-in page, 1 hour (spec §8); 'invite': sent when a person is added
-- (the tenant's first user included) to set their first password.
CREATE TABLE portal_password_links (
  token_hash    text PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES portal_users (id) ON DELETE CASCADE,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  purpose       text NOT NULL CHECK (purpose IN ('reset', 'invite')),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz
);
CREATE INDEX portal_password_links_user ON portal_password_links (user_id, purpose, created_at);

-- Keys reported by a code host's secret-scanning program: where each was found, and when Lore
-- revoked it. One row per report; a replayed report finds its row and changes nothing.
CREATE TABLE leaked_key_reports (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  api_key_id    uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  url           text,
  source        text,
  -- True when this report revoked a live key (and its tenant's admins were e-mailed).
  revoked       boolean NOT NULL,
  reported_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leaked_key_reports_tenant ON leaked_key_reports (tenant_id);
CREATE UNIQUE INDEX leaked_key_reports_once ON leaked_key_reports (api_key_id, coalesce(url, ''), coalesce(source, ''));
