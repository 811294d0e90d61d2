import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RequestContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { SESSION_COOKIE, readCookie } from '../portal/cookies.js';
import type { DomainMetrics, RateLimitScope } from '../../core/ports/metrics.js';
import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store.js';

/** Where the limits count (a process's adapters), and where their refusals are reported. */
export interface Limits {
  rateLimits: RateLimitStore;
  metrics: Pick<DomainMetrics, 'rateLimited'>;
}

/** The endpoint groups with a per-key burst limit. */
export type BurstBucket = 'query' | 'documents';

function refuse(limits: Limits, scope: RateLimitScope, decision: RateLimitDecision, what: string): AppError {
  limits.metrics.rateLimited(scope);
  return new AppError(
    429,
    'rate_limit_exceeded',
    `Rate limit exceeded: ${decision.limit} ${what}. Retry after ${decision.resetSeconds} s.`,
    { limit: decision.limit, retry_after: decision.resetSeconds },
    { 'Retry-After': String(decision.resetSeconds) },
  );
}

/** Spec §8: at most `perSecond` requests per second from one client IP, across all endpoints. */
export function perIpLimit(limits: Limits, perSecond: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const decision = await limits.rateLimits.consume(`ip:${req.ip ?? 'unknown'}`, perSecond, 1);
    if (!decision.allowed) throw refuse(limits, 'ip', decision, 'requests per second from this address');
    next();
  };
}

/**
 * A burst limit per API key (or portal session) on one group of endpoints. It runs before authentication, keyed by a
 * digest of the presented credential, so a flood is refused without a database lookup (a request
 * without credentials is left to authentication, which refuses it).
 */
export function perKeyLimit(limits: Limits, bucket: BurstBucket, perSecond: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const credential = req.get('authorization') ?? readCookie(req, SESSION_COOKIE);
    if (!credential) return next();
    const digest = createHash('sha256').update(credential).digest('base64url').slice(0, 22);
    await checkBurstLimit(limits, bucket, digest, perSecond);
    next();
  };
}

/** One request of a credential (API key digest, or OAuth client) against a per-second burst limit. */
export async function checkBurstLimit(limits: Limits, bucket: BurstBucket, credential: string, perSecond: number): Promise<void> {
  const decision = await limits.rateLimits.consume(`key:${bucket}:${credential}`, perSecond, 1);
  if (!decision.allowed) throw refuse(limits, `key_${bucket}`, decision, `requests per second per key on ${bucket}`);
}

/**
 * The tenant's query rate limit per minute (its plan's, or support's override). Answers carry
 * X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the window resets).
 */
export function perTenantQueryLimit(limits: Limits) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    await checkTenantQueryLimit(limits, res.locals.ctx as RequestContext, (decision) => {
      res.setHeader('X-RateLimit-Limit', String(decision.limit));
      res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
      res.setHeader('X-RateLimit-Reset', String(decision.resetSeconds));
    });
    next();
  };
}

/** One query against the tenant's per-minute limit (REST and MCP share it); `seen` gets the decision first. */
export async function checkTenantQueryLimit(
  limits: Limits,
  ctx: RequestContext,
  seen?: (decision: RateLimitDecision) => void,
): Promise<void> {
  const decision = await limits.rateLimits.consume(`tenant:query:${ctx.tenantId}`, ctx.tenant.queryRateLimitPerMin, 60);
  seen?.(decision);
  if (!decision.allowed) throw refuse(limits, 'tenant_query', decision, 'queries per minute for this tenant');
}

/**
 * The limits of a query's narrower scopes: the sub-tenant's own queries per minute
 * (`rate_limit_exceeded`), and the end user's (X-User-Id) queries per minute, configured per
 * tenant and sub-tenant (`per_user_rate_limit_exceeded`).
 */
export function subTenantAndUserQueryLimits(limits: Limits) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    await checkSubTenantAndUserQueryLimits(limits, res.locals.ctx as RequestContext);
    next();
  };
}

/** One query against the sub-tenant's and the end user's per-minute limits (REST and MCP share them). */
export async function checkSubTenantAndUserQueryLimits(limits: Limits, ctx: RequestContext): Promise<void> {
  const sub = ctx.subTenant;
  if (sub?.queryRateLimitPerMin) {
    const decision = await limits.rateLimits.consume(`sub_tenant:query:${sub.id}`, sub.queryRateLimitPerMin, 60);
    if (!decision.allowed) throw refuse(limits, 'sub_tenant_query', decision, 'queries per minute for this sub-tenant');
  }
  if (ctx.userId) {
    const limit = sub?.perUserRateLimitPerMin ?? ctx.tenant.perUserRateLimitPerMin;
    const decision = await limits.rateLimits.consume(`user:query:${ctx.tenantId}:${sub?.id ?? '-'}:${ctx.userId}`, limit, 60);
    if (!decision.allowed) {
      const err = refuse(limits, 'user_query', decision, 'queries per minute for this end user');
      throw new AppError(429, 'per_user_rate_limit_exceeded', err.message, err.extra, err.headers);
    }
  }
}
