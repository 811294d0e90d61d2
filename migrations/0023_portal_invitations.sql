-- An admin's invitation to a tenant's portal is a record of its own, not an account: the person's
-- portal_users row is made only when they accept it by choosing a password. So an invitation neither
-- claims the address (a tenant created for it later still gets its portal user) nor tells the
-- inviter whether the address has an account elsewhere.
CREATE TABLE portal_invitations (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- Lower-cased, as portal_users.email; several tenants may invite one address.
  email       text NOT NULL,
  role        text NOT NULL CHECK (role IN ('read', 'write', 'admin')),
  -- The language of the invitation e-mail (the inviting admin's) and of the account it makes.
  language    text NOT NULL DEFAULT 'en',
  -- SHA-256 of the e-mailed link's token (256 random bits, as portal_password_links').
  token_hash  text NOT NULL UNIQUE,
  -- NULL once the inviter is removed, and for invitations made before this migration.
  invited_by  uuid REFERENCES portal_users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL,
  -- When the last e-mail went: inviting the address again within the hour sends none.
  sent_at     timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  UNIQUE (tenant_id, email)
);

-- Invitations made before this migration were passwordless portal_users rows. They move here with
-- the digest of their newest open link, so a link already e-mailed still works. A tenant's own
-- address (its first user, made with the tenant by the instance operator) stays an account.
INSERT INTO portal_invitations (tenant_id, email, role, language, token_hash, created_at, sent_at, expires_at)
SELECT u.tenant_id, u.email, u.role, u.language, l.token_hash, u.created_at, l.created_at, l.expires_at
FROM portal_users u
JOIN tenants t ON t.id = u.tenant_id
JOIN LATERAL (
  SELECT token_hash, created_at, expires_at FROM portal_password_links
  WHERE user_id = u.id ORDER BY used_at IS NULL DESC, created_at DESC LIMIT 1
) l ON true
WHERE u.password_hash IS NULL AND u.email <> lower(trim(coalesce(t.email, '')));

DELETE FROM portal_users u USING tenants t
WHERE t.id = u.tenant_id AND u.password_hash IS NULL AND u.email <> lower(trim(coalesce(t.email, '')));
