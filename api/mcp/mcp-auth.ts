import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { RequestContext } from '../../core/context.js';
import { DPA_HEADER, DPA_HEADER_VALUE } from '../../core/dpa/dpa.service.js';
import { AppError } from '../../core/errors.js';
import type { OAuthUrls } from '../../core/oauth/oauth-urls.js';
import { type OAuthScope, effectiveScopes, roleOfScopes } from '../../core/oauth/oauth.schema.js';
import type { AccessTokenPrincipal } from '../../core/oauth/token.service.js';
import type { Services } from '../../runtime/services.js';
import { tenantContext } from '../middleware/auth.js';
import { requestBase } from '../oauth/oauth.routes.js';

/** What the MCP endpoint knows about the caller of one HTTP request, handed to the tools through the SDK. */
export interface McpCaller {
  principal: AccessTokenPrincipal;
  /** Every scope the token grants, implied ones included. */
  scopes: OAuthScope[];
  urls: OAuthUrls;
  requestId: string;
  log: Logger;
  /** X-User-Id of the HTTP request as Node gives it, if any (read as UTF-8 and validated by the tools that use it). */
  userId: string | undefined;
}

export type McpRequest = Request & { auth?: AuthInfo };

export function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw new AppError(401, 'unauthorized', 'This MCP request is not authenticated.');
  return caller;
}

/** The request context a tool runs in: the same shape REST builds from an API key. */
export function contextOf(caller: McpCaller): RequestContext {
  const { claims, tenant } = caller.principal;
  return {
    principal: { kind: 'oauth_client', id: claims.clientId, role: roleOfScopes(claims.scopes) },
    ...tenantContext(tenant),
    userId: null,
    requestId: caller.requestId,
    log: caller.log,
  };
}

function quoted(value: string): string {
  return value.replace(/["\\]/g, "'");
}

/** RFC 6750 §3 challenge naming the protected-resource metadata (RFC 9728 §5.1). */
export function bearerChallenge(urls: OAuthUrls, error?: { code: string; description: string; scope?: string }): string {
  const parts = ['Bearer realm="lore"'];
  if (error) {
    parts.push(`error="${error.code}"`, `error_description="${quoted(error.description)}"`);
    if (error.scope) parts.push(`scope="${error.scope}"`);
  }
  parts.push(`resource_metadata="${urls.mcpResourceMetadata}"`);
  return parts.join(', ');
}

/**
 * Authenticates every MCP request with an OAuth access token in the Authorization header (and only
 * there): 401 with a Bearer challenge that names the resource metadata otherwise. On success the
 * SDK's `req.auth` carries the caller for the tools; responses to a tenant that has not accepted the
 * current DPA carry the X-DPA-Action-Required header, as on REST.
 */
export function mcpBearerAuth(services: Pick<Services, 'oauthTokens' | 'dpa'>) {
  return async (req: McpRequest, res: Response, next: NextFunction): Promise<void> => {
    const urls = services.oauthTokens.urls(requestBase(req));
    const refuse = (status: number, code: string, description: string, withError = true) => {
      res.setHeader('WWW-Authenticate', bearerChallenge(urls, withError ? { code, description } : undefined));
      res.status(status).json({ error: code, error_description: description });
    };
    const query = req.query as Record<string, unknown>;
    if (query.access_token !== undefined) {
      return refuse(400, 'invalid_request', 'Send the access token in the Authorization header ("Bearer <token>"), never in the URL.');
    }
    const header = req.get('authorization');
    if (!header) {
      return refuse(
        401,
        'invalid_token',
        `An OAuth access token is required ("Authorization: Bearer <token>"); get one with the client credentials grant at ${urls.tokenEndpoint}.`,
        false,
      );
    }
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    if (!match?.[1]) return refuse(401, 'invalid_token', 'The Authorization header must be "Bearer <access token>".');
    let principal: AccessTokenPrincipal;
    try {
      principal = await services.oauthTokens.authenticate(match[1], urls);
    } catch (err) {
      if (err instanceof AppError && err.status === 401) return refuse(401, 'invalid_token', err.message);
      if (err instanceof AppError && err.status === 503) {
        res.setHeader('Retry-After', '5');
        return refuse(503, err.code, err.message, false);
      }
      throw err;
    }
    const log = (res.locals.log as Logger).child({ tenantId: principal.claims.tenantId, clientId: principal.claims.clientId });
    res.locals.log = log;
    if (!services.dpa.isCompliant(principal.tenant.dpa_accepted_version)) res.setHeader(DPA_HEADER, DPA_HEADER_VALUE);
    const caller: McpCaller = {
      principal,
      scopes: effectiveScopes(principal.claims.scopes),
      urls,
      requestId: res.locals.requestId as string,
      log,
      userId: req.get('x-user-id'),
    };
    req.auth = {
      token: match[1],
      clientId: principal.claims.clientId,
      scopes: caller.scopes,
      expiresAt: principal.claims.expiresAt,
      resource: new URL(urls.mcpResource),
      extra: { caller },
    };
    next();
  };
}
