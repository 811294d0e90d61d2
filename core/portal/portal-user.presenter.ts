import type { PortalUserRow } from './portal.repository.js';

/** A portal user as the account export shows them (never a password hash). */
export function presentPortalUser(u: PortalUserRow) {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    language: u.language,
    password_set: u.has_password,
    created_at: u.created_at.toISOString(),
    password_changed_at: u.password_changed_at?.toISOString() ?? null,
  };
}
