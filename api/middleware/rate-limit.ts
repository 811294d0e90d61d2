import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RequestContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store.js';

function refuse(decision: RateLimitDecision, what: string): AppError {
  return new AppError(
    429,
    'rate_limit_exceeded',
    `Rate limit exceeded: ${decision.limit} ${what}. Retry after ${decision.resetSeconds} s.`,
    { limit: decision.limit, retry_after: decision.resetSeconds },
    { 'Retry-After': String(decision.resetSeconds) },
  );
}

/** Spec §8: at most `perSecond` requests per second from one client IP, across all endpoints. */
export function perIpLimit(store: RateLimitStore, perSecond: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const decision = await store.consume(`ip:${req.ip ?? 'unknown'}`, perSecond, 1);
    if (!decision.allowed) throw refuse(decision, 'requests per second from this address');
    next();
  };
}

/**
 * A burst limit per API key on one group of endpoints. It runs before authentication, keyed by a
 * digest of the presented credential, so a flood is refused without a database lookup (a request
 * without credentials is left to authentication, which refuses it).
 */
export function perKeyLimit(store: RateLimitStore, bucket: string, perSecond: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const credential = req.get('authorization');
    if (!credential) return next();
    const digest = createHash('sha256').update(credential).digest('base64url').slice(0, 22);
    const decision = await store.consume(`key:${bucket}:${digest}`, perSecond, 1);
    if (!decision.allowed) throw refuse(decision, `requests per second per key on ${bucket}`);
    next();
  };
}

/**
 * The tenant's query rate limit per minute (its plan's, or support's override). Answers carry
 * X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the window resets).
 */
export function perTenantQueryLimit(store: RateLimitStore) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const ctx = res.locals.ctx as RequestContext;
    const limit = ctx.tenant.queryRateLimitPerMin;
    const decision = await store.consume(`tenant:query:${ctx.tenantId}`, limit, 60);
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) throw refuse(decision, 'queries per minute for this tenant');
    next();
  };
}
