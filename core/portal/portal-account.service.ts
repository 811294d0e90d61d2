import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Role } from '../context.js';
import type { Database, Queryable } from '../db/database.js';
import { AppError, errors } from '../errors.js';
import type { MailMessage, Mailer } from '../ports/mailer.js';
import type { DomainMetrics, RateLimitScope } from '../ports/metrics.js';
import type { RateLimitStore } from '../ports/rate-limit-store.js';
import { type AttemptBudget, AttemptLimiter } from '../shared/attempt-limiter.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, tenantScope } from '../shared/scope.js';
import { composeMail } from './emails.js';
import { hashPassword, passwordProblem, verifyPassword } from './password.js';
import {
  type PortalInvitationRow,
  type UsableInvitationRow,
  deleteInvitation,
  findUsableInvitation,
  listInvitations,
  takeInvitation,
  upsertInvitation,
} from './portal-invitation.repository.js';
import {
  type PortalUserRow,
  type SessionRow,
  consumePasswordLinks,
  countPortalAdmins,
  countResetLinksSince,
  deleteExpiredSessions,
  deletePortalSession,
  deletePortalUser,
  deleteUserSessions,
  findUserForSignIn,
  findUsablePasswordLink,
  insertPasswordLink,
  insertPortalSession,
  insertPortalUser,
  listPortalUsers,
  lockPortalUser,
  setPortalLanguage,
  setPortalPassword,
  touchPortalSession,
} from './portal.repository.js';

/** Spec §8: a reset link lasts 1 hour, works once, and at most 3 are e-mailed per hour. */
export const RESET_LINK_SECONDS = 3600;
export const RESET_MAILS_PER_HOUR = 3;
/** Reset requests one address may make in an hour, across accounts. */
export const RESET_REQUESTS_PER_IP_PER_HOUR = 10;
/** Invitations one admin may send in an hour, and all the admins of a tenant together. */
export const INVITATIONS_PER_USER_PER_HOUR = 10;
export const INVITATIONS_PER_TENANT_PER_HOUR = 20;
/** An invited person, and a tenant's first user, have this long to choose their first password. */
export const INVITE_LINK_HOURS = 72;
/** An address invited again within this time is e-mailed nothing more. */
const INVITE_RESEND_SECONDS = 3600;

/**
 * Failed sign-ins are throttled, not locked per account for anyone who knows its address (OWASP's
 * authentication guidance): the counters that stop the right password too are keyed by account and
 * client address together. A failure costs 10 points; each budget allows points / 10 failures.
 */
const FAILURE_COST = 10;
/** One account from one client address: 5 failures a minute, 10 in 15 minutes, 20 an hour. */
const ACCOUNT_AND_IP_BUDGETS: Array<[points: number, windowSeconds: number]> = [
  [50, 60],
  [100, 900],
  [200, 3600],
];
/** One client address, across accounts: 30 failures a minute, 200 an hour. */
const IP_BUDGETS: Array<[points: number, windowSeconds: number]> = [
  [300, 60],
  [2000, 3600],
];
/**
 * One account from every address together: 100 failures an hour, to slow guessing spread over many
 * addresses. Using it up takes at least 5 addresses (each stops at 20 an hour).
 */
const ACCOUNT_BUDGETS: Array<[points: number, windowSeconds: number]> = [[1000, 3600]];

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function invalidLink(): AppError {
  return errors.badRequest('invalid_link', 'This link has expired or has been used already; ask for a new one.');
}

/** The answer to the holder of an invitation whose address has an account: one address, one account. */
function addressTaken(invitation: UsableInvitationRow): AppError {
  return errors.conflict(
    'email_in_use',
    `${invitation.email} already has a Lore account, and an address can have only one. Sign in with that account; to join ${invitation.tenant_name}, ask its admin to invite another address of yours.`,
  );
}

/** The hash of a password chosen through a link, once it passes the password rules (422 otherwise). */
async function chosenPassword(password: string, email: string): Promise<string> {
  const problem = passwordProblem(password, email);
  if (problem) throw errors.invalid('password', problem);
  return hashPassword(password);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface PortalOptions {
  sessionIdleMinutes: number;
  sessionMaxHours: number;
  /**
   * Where links in e-mails point: PUBLIC_BASE_URL, never a request's Host header (which a caller
   * chooses). Without it, http://localhost and the port Lore listens on (see `listeningOn`).
   */
  publicBaseUrl: string | undefined;
  port: number;
}

/** A new session: the cookie's value (shown to the browser only) and its CSRF token. */
export interface StartedSession {
  sessionId: string;
  csrfToken: string;
  user: PortalUserRow;
}

/** A tenant's first user and their set-password link, made inside a transaction and e-mailed after it commits. */
export interface PendingInvitation {
  user: PortalUserRow;
  token: string;
  tenantName: string;
}

/**
 * Portal accounts (spec §5 "Web portal account"): people of a tenant who sign in with an e-mail
 * address and a password, their sessions, and the e-mailed links that set or reset a password.
 */
export class PortalAccountService {
  private readonly attempts: AttemptLimiter;
  private port: number;

  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer,
    private readonly rateLimits: RateLimitStore,
    private readonly metrics: Pick<DomainMetrics, 'rateLimited'>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: PortalOptions,
  ) {
    this.attempts = new AttemptLimiter(rateLimits, FAILURE_COST, 'portal_sign_in', metrics);
    this.port = options.port;
  }

  get baseUrl(): string {
    return this.options.publicBaseUrl ?? `http://localhost:${this.port}`;
  }

  /** The port the server listens on once it does (PORT=0 picks one), for links when PUBLIC_BASE_URL is unset. */
  listeningOn(port: number): void {
    this.port = port;
  }

  // People

  list(scope: Scope): Promise<PortalUserRow[]> {
    return listPortalUsers(this.db, scope);
  }

  /**
   * Adds a tenant's first user (the instance operator's action, when the tenant is made with an
   * address) with a set-password link, in the caller's transaction; e-mail the link with
   * `sendInvitation` after it commits. 409 email_in_use when the address has an account already.
   */
  async addUser(db: Queryable, scope: Scope, input: { email: string; role: Role; language?: string }, tenantName: string): Promise<PendingInvitation> {
    const user = await insertPortalUser(db, scope, { email: normalizeEmail(input.email), role: input.role, language: input.language ?? 'en' });
    if (!user) throw errors.conflict('email_in_use', 'This e-mail address already has a Lore portal account.');
    const token = await this.issueLink(db, scope, user.id, 'invite', INVITE_LINK_HOURS * 3600);
    return { user, token, tenantName };
  }

  /** E-mails a tenant's first user their link; a mail that cannot be sent is logged (they can ask for a reset). */
  async sendInvitation({ user, token, tenantName }: PendingInvitation): Promise<string | undefined> {
    return this.deliver(composeMail('invite', user.language, user.email, { link: this.passwordLink(token), tenant: tenantName, hours: String(INVITE_LINK_HOURS) }), user.tenant_id);
  }

  /**
   * Invites an address to the tenant (an admin's action). The admin gets the same answer whether or
   * not the address has an account, and the address is not claimed: the person's account is made only
   * when they accept (`completeLink`). An address that has an account is e-mailed that it was invited
   * but cannot join with it; one invited in the last hour is e-mailed nothing more. Only one of the
   * tenant's own people, whom the admin sees listed anyway, is refused (409 email_in_use).
   */
  async invite(scope: Scope, inviterId: string, input: { email: string; role: Role; language?: string }, tenantName: string): Promise<PortalInvitationRow> {
    // The person's limit first: one refused there leaves the tenant's budget to the other admins.
    await this.limitPerHour(`portal:invite:user:${inviterId}`, INVITATIONS_PER_USER_PER_HOUR, 'portal_invitation', 'Too many invitations from you');
    await this.limitPerHour(`portal:invite:tenant:${scope.tenantId}`, INVITATIONS_PER_TENANT_PER_HOUR, 'portal_invitation', 'Too many invitations from this tenant');
    const email = normalizeEmail(input.email);
    const account = await findUserForSignIn(this.db, email);
    if (account?.tenant_id === scope.tenantId) throw errors.conflict('email_in_use', `${email} is already one of the people of ${tenantName}.`);
    const token = newSecret();
    const now = this.clock.now();
    const { invitation, sent } = await upsertInvitation(this.db, scope, {
      email,
      role: input.role,
      language: input.language ?? 'en',
      tokenHash: digest(token),
      invitedBy: inviterId,
      now,
      expiresAt: new Date(now.getTime() + INVITE_LINK_HOURS * 3600_000),
      resendAfter: new Date(now.getTime() - INVITE_RESEND_SECONDS * 1000),
    });
    if (sent) {
      const message = account
        ? composeMail('invite_taken', account.language, email, { tenant: tenantName, link: `${this.baseUrl}/portal/sign-in` })
        : composeMail('invite', invitation.language, email, { link: this.passwordLink(token), tenant: tenantName, hours: String(INVITE_LINK_HOURS) });
      await this.deliver(message, scope.tenantId);
    }
    return invitation;
  }

  /** The tenant's open invitations, each marked when its link has expired. */
  async invitations(scope: Scope): Promise<Array<PortalInvitationRow & { expired: boolean }>> {
    const now = this.clock.now();
    return (await listInvitations(this.db, scope)).map((i) => ({ ...i, expired: i.expires_at <= now }));
  }

  /** Withdraws an invitation: its link stops working. */
  async revokeInvitation(scope: Scope, id: string): Promise<void> {
    if (!isUuid(id) || !(await deleteInvitation(this.db, scope, id))) throw errors.notFound('invitation');
  }

  /** Removes a person (their sessions end with them); the last admin cannot be removed. */
  async remove(scope: Scope, userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const users = await listPortalUsers(tx, scope);
      const user = isUuid(userId) ? users.find((u) => u.id === userId) : undefined;
      if (!user) throw errors.notFound('portal user');
      if (user.role === 'admin' && (await countPortalAdmins(tx, scope)) === 1) {
        throw errors.conflict('last_admin', 'The last admin of a tenant cannot be removed; make someone else an admin first.');
      }
      await deletePortalUser(tx, scope, userId);
    });
  }

  /** Counts a request in the shared rate-limit store; beyond `limit` in the hour, 429 with Retry-After. */
  private async limitPerHour(key: string, limit: number, scope: RateLimitScope, what: string): Promise<void> {
    const decision = await this.rateLimits.consume(key, limit, 3600);
    if (decision.allowed) return;
    this.metrics.rateLimited(scope);
    throw new AppError(429, 'rate_limit_exceeded', `${what}; retry after ${decision.resetSeconds} s.`, {}, { 'Retry-After': String(decision.resetSeconds) });
  }

  // Signing in and out

  /**
   * The counters of a sign-in, in the order they are checked: one refused at its own address takes
   * nothing more from the account's. The account's carry when its password was last set, so a
   * completed reset starts them afresh at every address.
   */
  private signInBudgets(email: string, passwordChangedAt: Date | null | undefined, ip: string): AttemptBudget[] {
    const account = createHash('sha256').update(`${email}\n${passwordChangedAt?.getTime() ?? ''}`).digest('base64url').slice(0, 22);
    const budgets = (prefix: string, list: Array<[number, number]>) => list.map(([points, windowSeconds]) => ({ key: `${prefix}:${windowSeconds}`, points, windowSeconds }));
    return [
      ...budgets(`portal:login:account-ip:${account}:${ip}`, ACCOUNT_AND_IP_BUDGETS),
      ...budgets(`portal:login:ip:${ip}`, IP_BUDGETS),
      ...budgets(`portal:login:account:${account}`, ACCOUNT_BUDGETS),
    ];
  }

  /**
   * Checks an address and password and starts a session. An unknown address, a person who has not
   * set a password yet and a wrong password get the same 401 after the same work (a password hash is
   * checked in every case). Failures are limited per account at one client address with growing
   * delays, per client address, and (far more loosely) per account.
   */
  async signIn(emailInput: string, password: string, ip: string, language: string | undefined): Promise<StartedSession> {
    const email = normalizeEmail(emailInput);
    const user = await findUserForSignIn(this.db, email);
    const budgets = this.signInBudgets(email, user?.password_changed_at, ip);
    await this.attempts.admit(budgets, 'Too many failed sign-in attempts');
    const valid = await verifyPassword(password, user?.password_hash ?? null);
    if (!user || !valid) {
      await this.attempts.fail(budgets);
      throw new AppError(401, 'invalid_credentials', 'The e-mail address or the password is not right.');
    }
    const scope = tenantScope(user.tenant_id);
    if (language && language !== user.language) await setPortalLanguage(this.db, scope, user.id, language);
    const now = this.clock.now();
    const sessionId = newSecret();
    const csrfToken = newSecret();
    await deleteExpiredSessions(this.db, now);
    // A new id at every sign-in: an id someone planted in the browser before it is never used.
    await insertPortalSession(this.db, {
      idHash: digest(sessionId),
      userId: user.id,
      tenantId: user.tenant_id,
      csrfToken,
      now,
      expiresAt: new Date(now.getTime() + this.options.sessionMaxHours * 3600_000),
    });
    const { password_hash: _hash, ...row } = user;
    return { sessionId, csrfToken, user: row };
  }

  /** The live session a cookie names (neither past its absolute expiry nor idle too long), or undefined. */
  async session(sessionId: string | undefined): Promise<SessionRow | undefined> {
    if (!sessionId || !SECRET_PATTERN.test(sessionId)) return undefined;
    return touchPortalSession(this.db, digest(sessionId), this.clock.now(), this.options.sessionIdleMinutes * 60);
  }

  async signOut(sessionId: string): Promise<void> {
    if (SECRET_PATTERN.test(sessionId)) await deletePortalSession(this.db, digest(sessionId));
  }

  /** Ends every session of a person, in every browser. */
  async signOutEverywhere(scope: Scope, userId: string): Promise<number> {
    return deleteUserSessions(this.db, scope, userId);
  }

  // Password links

  private async issueLink(db: Queryable, scope: Scope, userId: string, purpose: 'reset' | 'invite', seconds: number): Promise<string> {
    const token = newSecret();
    const now = this.clock.now();
    await insertPasswordLink(db, scope, { tokenHash: digest(token), userId, purpose, now, expiresAt: new Date(now.getTime() + seconds * 1000) });
    return token;
  }

  /**
   * A reset request (spec §5): when the address has an account and fewer than 3 reset e-mails went
   * to it in the last hour, a single-use link valid for 1 hour is e-mailed. The caller learns nothing
   * either way (the page shows the same message); only an address sending too many requests gets 429.
   */
  async requestReset(emailInput: string, ip: string): Promise<void> {
    await this.limitPerHour(`portal:reset:ip:${ip}`, RESET_REQUESTS_PER_IP_PER_HOUR, 'portal_password_reset', 'Too many reset requests');
    const user = await findUserForSignIn(this.db, normalizeEmail(emailInput));
    if (!user) return;
    const scope = tenantScope(user.tenant_id);
    const token = await this.db.transaction(async (tx) => {
      // One request at a time per person, so two at once cannot both be the third.
      await lockPortalUser(tx, scope, user.id);
      const since = new Date(this.clock.now().getTime() - 3600_000);
      if ((await countResetLinksSince(tx, scope, user.id, since)) >= RESET_MAILS_PER_HOUR) return undefined;
      return this.issueLink(tx, scope, user.id, 'reset', RESET_LINK_SECONDS);
    });
    if (!token) {
      this.log.info({ tenantId: user.tenant_id, userId: user.id }, 'password reset not e-mailed: 3 already went out this hour');
      return;
    }
    await this.deliver(composeMail('reset', user.language, user.email, { link: this.passwordLink(token) }), user.tenant_id);
  }

  private passwordLink(token: string): string {
    return `${this.baseUrl}/portal/password?token=${token}`;
  }

  /**
   * Whether a link can still be used (the page asks before showing its form), and for an invitation
   * whose address has had an account made since, why it cannot be accepted (its holder owns the
   * address: telling them is no leak).
   */
  async linkIsUsable(token: string): Promise<{ email: string; refusal?: AppError } | undefined> {
    if (!SECRET_PATTERN.test(token)) return undefined;
    const now = this.clock.now();
    const link = await findUsablePasswordLink(this.db, digest(token), now);
    if (link) return { email: link.email };
    const invitation = await findUsableInvitation(this.db, digest(token), now);
    if (!invitation) return undefined;
    const taken = await findUserForSignIn(this.db, invitation.email);
    return { email: invitation.email, ...(taken && { refusal: addressTaken(invitation) }) };
  }

  /**
   * Sets a password through a link: once, within its lifetime. Every session of the person ends
   * (spec §5: a completed reset signs them out everywhere); API keys and OAuth clients are untouched.
   * An invitation's link makes the person's account.
   */
  async completeLink(token: string, password: string): Promise<{ email: string }> {
    if (!SECRET_PATTERN.test(token)) throw invalidLink();
    const tokenHash = digest(token);
    const link = await findUsablePasswordLink(this.db, tokenHash, this.clock.now());
    if (!link) return this.acceptInvitation(tokenHash, password);
    const hash = await chosenPassword(password, link.email);
    const scope = tenantScope(link.tenant_id);
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      if (!(await consumePasswordLinks(tx, scope, link.user_id, tokenHash, now))) throw invalidLink();
      await setPortalPassword(tx, scope, link.user_id, hash, now);
      await deleteUserSessions(tx, scope, link.user_id);
    });
    return { email: link.email };
  }

  /**
   * Accepts an invitation: the person's account is made now, with the password they chose, in the
   * tenant and role they were invited to. When the address has had an account made since, nothing is
   * made and the invitation stays (409 email_in_use, to the holder of the link).
   */
  private async acceptInvitation(tokenHash: string, password: string): Promise<{ email: string }> {
    const invitation = await findUsableInvitation(this.db, tokenHash, this.clock.now());
    if (!invitation) throw invalidLink();
    const hash = await chosenPassword(password, invitation.email);
    const scope = tenantScope(invitation.tenant_id);
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      if (!(await takeInvitation(tx, scope, invitation.id, tokenHash, now))) throw invalidLink();
      const { email, role, language } = invitation;
      if (!(await insertPortalUser(tx, scope, { email, role, language, password: { hash, now } }))) throw addressTaken(invitation);
    });
    return { email: invitation.email };
  }

  /** Sends a message and answers where it went; one that cannot be sent is logged, and answers undefined. */
  async deliver(message: MailMessage, tenantId: string): Promise<string | undefined> {
    try {
      return (await this.mailer.send(message)).location;
    } catch (err) {
      this.log.error({ err, tenantId, subject: message.subject }, 'an e-mail could not be sent');
      return undefined;
    }
  }
}
