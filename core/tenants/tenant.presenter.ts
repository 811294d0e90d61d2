import type { TenantInvitation } from './tenant.service.js';
import type { TenantRecord } from './tenant.schema.js';

export interface TenantView extends Omit<TenantRecord, 'created_at' | 'updated_at'> {
  created_at: string;
  updated_at: string;
}

/** A tenant as the instance operator sees it (internal admin API, CLI, account export). */
export function presentTenant(t: TenantRecord): TenantView {
  return { ...t, created_at: t.created_at.toISOString(), updated_at: t.updated_at.toISOString() };
}

/** The first portal user's set-password e-mail, as the admin API and the CLI show it. */
export function presentInvitation(invitation: TenantInvitation | null): { email: string; delivered_to: string | null } | null {
  return invitation && { email: invitation.email, delivered_to: invitation.deliveredTo };
}
