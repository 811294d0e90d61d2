import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { escapeHtml } from '../../core/shared/html.js';
import { AppError, ValidationError } from '../../core/errors.js';
import type { AuthenticatedClient } from '../../core/oauth/oauth-client.service.js';
import type { OAuthUrls } from '../../core/oauth/oauth-urls.js';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  INTERACTIVE_SIGN_IN_UNAVAILABLE,
  OAUTH_SCOPES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  oauthError,
} from '../../core/oauth/oauth.schema.js';
import type { Services } from '../../runtime/services.js';
import { JSON_TYPES, formParser, jsonParser } from '../text-input.js';
import { FailedAttemptLimiter } from './failed-attempts.js';

/** The base URL a request came to (scheme and host, as trusted proxies report them). */
export function requestBase(req: Request): string {
  return `${req.protocol}://${req.host}`;
}

type FormBody = Record<string, string | string[] | undefined>;

/** Grants that need a person at a browser: refused with the reason spelled out. */
const INTERACTIVE_GRANTS = new Set(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);

function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

function publicMetadata(res: Response): void {
  res.setHeader('Cache-Control', 'public, max-age=300');
  // Browser-based MCP clients read discovery documents and keys from other origins.
  res.setHeader('Access-Control-Allow-Origin', '*');
}

function formBody(req: Request): FormBody {
  if (!req.is('application/x-www-form-urlencoded') || typeof req.body !== 'object' || req.body === null) {
    throw oauthError(400, 'invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  return req.body as FormBody;
}

/** RFC 6749 §3.2: parameters must not repeat (RFC 8707 `resource` may). */
function single(body: FormBody, name: string): string | undefined {
  const value = body[name];
  if (Array.isArray(value)) throw oauthError(400, 'invalid_request', `The parameter "${name}" must not be repeated.`);
  return value === '' ? undefined : value;
}

function all(body: FormBody, name: string): string[] {
  const value = body[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v) => v !== '');
}

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="lore", charset="UTF-8"' };

function invalidClient(usedBasic: boolean, description: string): AppError {
  return oauthError(401, 'invalid_client', description, usedBasic ? BASIC_CHALLENGE : {});
}

/** RFC 6749 §2.3.1: the parts of HTTP Basic client credentials are form-urlencoded first. */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw invalidClient(true, 'The HTTP Basic credentials are not form-urlencoded.');
  }
}

interface PresentedCredentials {
  clientId: string;
  secret: string;
  usedBasic: boolean;
}

/** The client credentials of a request: HTTP Basic (client_secret_basic) or form fields (client_secret_post). */
function presentedCredentials(req: Request, body: FormBody): PresentedCredentials | undefined {
  const header = req.get('authorization');
  const postedId = single(body, 'client_id');
  const postedSecret = single(body, 'client_secret');
  if (header !== undefined) {
    const match = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header.trim());
    if (!match?.[1]) throw invalidClient(true, 'The Authorization header must be HTTP Basic with the client_id and client_secret.');
    const bytes = Buffer.from(match[1], 'base64');
    if (!isUtf8(bytes)) throw invalidClient(true, 'The HTTP Basic credentials are not UTF-8.');
    const decoded = bytes.toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient(true, 'The HTTP Basic credentials must be "client_id:client_secret".');
    if (postedSecret !== undefined) throw oauthError(400, 'invalid_request', 'Use one client authentication method: HTTP Basic or form fields, not both.');
    const clientId = formDecode(decoded.slice(0, colon));
    if (postedId !== undefined && postedId !== clientId) throw oauthError(400, 'invalid_request', 'client_id differs from the HTTP Basic credentials.');
    return { clientId, secret: formDecode(decoded.slice(colon + 1)), usedBasic: true };
  }
  if (postedId === undefined && postedSecret === undefined) return undefined;
  if (postedId === undefined || postedSecret === undefined) {
    throw invalidClient(false, 'Both client_id and client_secret are required (or HTTP Basic authentication).');
  }
  return { clientId: postedId, secret: postedSecret, usedBasic: false };
}

function documentation(urls: OAuthUrls): string {
  return `Lore OAuth 2.1 authorization server

${INTERACTIVE_SIGN_IN_UNAVAILABLE}

Access tokens are for the MCP endpoint only (the REST API takes API keys). They are signed JWTs
(RFC 9068) that expire after ${ACCESS_TOKEN_LIFETIME_SECONDS / 60} minutes; get a new one when a token expires.

  Token (client credentials):  POST ${urls.tokenEndpoint}
      grant_type=client_credentials, scope (optional: ${OAUTH_SCOPES.join(', ')}; default: all of the client's),
      resource (optional, RFC 8707; default ${urls.mcpResource});
      authenticate with HTTP Basic (client_secret_basic) or client_id + client_secret form fields (client_secret_post)
  Revocation (RFC 7009):       POST ${urls.revocationEndpoint}
  Registration (RFC 7591):     POST ${urls.registrationEndpoint} with an initial access token from support
  Keys (JWKS):                 GET  ${urls.jwksUri}
  MCP, Streamable HTTP:        ${urls.mcpResource}
  MCP, HTTP+SSE:               ${urls.mcpResource}/sse

Scopes: mcp:read (search, list knowledge bases, documents and jobs); mcp:write (also ingest documents,
create and rename knowledge bases); mcp:admin (also create and revoke API keys). A broader scope
includes the narrower ones.
`;
}

/**
 * The built-in authorization server (spec §4 "OAuth and MCP", §5): client credentials token,
 * revocation and registration endpoints, discovery documents (RFC 8414, RFC 9728) and JWKS. Errors
 * are OAuth errors `{error, error_description}`; nothing here takes an API key.
 */
export function oauthRouter(deps: { services: Pick<Services, 'oauthClients' | 'oauthTokens' | 'adapters'>; log: Logger }): Router {
  const { oauthClients, oauthTokens } = deps.services;
  const limiter = new FailedAttemptLimiter(deps.services.adapters.rateLimits, deps.services.adapters.metrics);
  const form = formParser({ limit: '16kb', parameterLimit: 50, location: 'body' });
  const router = express.Router();
  const urlsOf = (req: Request) => oauthTokens.urls(requestBase(req));
  const template = (path: string) => (_req: Request, res: Response, next: NextFunction) => {
    res.locals.routeTemplate = path;
    next();
  };

  const authenticateClient = async (req: Request, body: FormBody): Promise<AuthenticatedClient> => {
    const presented = presentedCredentials(req, body);
    if (!presented) {
      throw invalidClient(false, 'Client authentication is required: HTTP Basic (client_secret_basic) or client_id and client_secret form fields (client_secret_post).');
    }
    const ip = req.ip ?? 'unknown';
    await limiter.admit(ip, presented.clientId);
    const client = await oauthClients.authenticate(presented.clientId, presented.secret);
    if (!client) {
      await limiter.fail(ip, presented.clientId);
      throw invalidClient(presented.usedBasic, 'Client authentication failed: the client is unknown or revoked, or the secret is wrong.');
    }
    return client;
  };

  router.post('/oauth/token', template('/oauth/token'), form, async (req: Request, res: Response) => {
    noStore(res);
    const body = formBody(req);
    const grantType = single(body, 'grant_type');
    if (!grantType) throw oauthError(400, 'invalid_request', 'grant_type is required; this server supports grant_type=client_credentials.');
    if (INTERACTIVE_GRANTS.has(grantType)) throw oauthError(400, 'unsupported_grant_type', INTERACTIVE_SIGN_IN_UNAVAILABLE);
    if (grantType !== 'client_credentials') {
      throw oauthError(400, 'unsupported_grant_type', `grant_type "${grantType}" is not supported; use client_credentials.`);
    }
    const client = await authenticateClient(req, body);
    const response = await oauthTokens.issue(client, { scope: single(body, 'scope'), resources: all(body, 'resource') }, urlsOf(req));
    res.status(200).json(response);
  });

  router.post('/oauth/revoke', template('/oauth/revoke'), form, async (req: Request, res: Response) => {
    noStore(res);
    const body = formBody(req);
    const client = await authenticateClient(req, body);
    const token = single(body, 'token');
    if (!token) throw oauthError(400, 'invalid_request', 'The parameter "token" is required.');
    // token_type_hint is optional and only a hint (RFC 7009 §2.1): Lore issues access tokens only.
    single(body, 'token_type_hint');
    await oauthTokens.revoke(client, token);
    res.status(200).end();
  });

  router.post(
    '/oauth/register',
    template('/oauth/register'),
    jsonParser('64kb'),
    async (req: Request, res: Response) => {
      noStore(res);
      const challenge = { 'WWW-Authenticate': 'Bearer realm="lore", error="invalid_token"' };
      const match = /^Bearer +(\S+)$/i.exec(req.get('authorization')?.trim() ?? '');
      if (!match?.[1]) {
        throw oauthError(
          401,
          'invalid_token',
          'Registration needs an initial access token from support (Authorization: Bearer <token>); open registration is not available.',
          { 'WWW-Authenticate': 'Bearer realm="lore"' },
        );
      }
      if (!req.is(JSON_TYPES)) {
        throw oauthError(400, 'invalid_client_metadata', 'The client metadata must be a JSON object (application/json).');
      }
      const ip = req.ip ?? 'unknown';
      await limiter.admit(ip, undefined);
      try {
        res.status(201).json(await oauthClients.registerWithInitialAccessToken(match[1], req.body));
      } catch (err) {
        if (err instanceof AppError && err.code === 'invalid_token') {
          await limiter.fail(ip, undefined);
          throw oauthError(401, err.code, err.message, challenge);
        }
        throw err;
      }
    },
  );

  // No browser sign-in (spec §5): an authorization request gets the reason, and no redirect (there
  // is no registered redirect URI to trust).
  router.all('/oauth/authorize', template('/oauth/authorize'), (_req: Request, res: Response) => {
    noStore(res);
    res.status(400).format({
      'application/json': () => res.json({ error: 'unsupported_response_type', error_description: INTERACTIVE_SIGN_IN_UNAVAILABLE }),
      'text/html': () =>
        res.send(`<!doctype html><title>Sign-in unavailable</title><h1>Sign-in unavailable</h1><p>${escapeHtml(INTERACTIVE_SIGN_IN_UNAVAILABLE)}</p>`),
      default: () => res.type('text/plain').send(`unsupported_response_type: ${INTERACTIVE_SIGN_IN_UNAVAILABLE}\n`),
    });
  });

  router.get('/oauth/documentation', template('/oauth/documentation'), (req: Request, res: Response) => {
    publicMetadata(res);
    res.type('text/plain').send(documentation(urlsOf(req)));
  });

  router.get('/oauth/jwks', template('/oauth/jwks'), async (_req: Request, res: Response) => {
    publicMetadata(res);
    res.json(await oauthTokens.jwks());
  });

  // RFC 8414 §3: at /.well-known/oauth-authorization-server followed by the issuer's path, if any.
  router.get(/^\/\.well-known\/oauth-authorization-server(\/.*)?$/, template('/.well-known/oauth-authorization-server'), (req: Request, res: Response, next: NextFunction) => {
    const urls = urlsOf(req);
    if (req.path.replace(/\/+$/, '') !== new URL(urls.authorizationServerMetadata).pathname) return next();
    publicMetadata(res);
    res.json({
      issuer: urls.issuer,
      authorization_endpoint: urls.authorizationEndpoint,
      token_endpoint: urls.tokenEndpoint,
      revocation_endpoint: urls.revocationEndpoint,
      registration_endpoint: urls.registrationEndpoint,
      jwks_uri: urls.jwksUri,
      scopes_supported: OAUTH_SCOPES,
      grant_types_supported: ['client_credentials'],
      // No authorization code flow: the authorization endpoint only explains that (spec §5).
      response_types_supported: [],
      token_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
      revocation_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
      service_documentation: `${urls.issuer}/oauth/documentation`,
      service_description: INTERACTIVE_SIGN_IN_UNAVAILABLE,
    });
  });

  // RFC 9728 §3: the MCP server (its base URL) and the MCP endpoint (`/mcp`) as protected resources.
  router.get(/^\/\.well-known\/oauth-protected-resource(\/.*)?$/, template('/.well-known/oauth-protected-resource'), (req: Request, res: Response, next: NextFunction) => {
    const urls = urlsOf(req);
    const suffix = req.path.slice('/.well-known/oauth-protected-resource'.length).replace(/\/+$/, '');
    const basePath = new URL(urls.mcpBase).pathname.replace(/\/+$/, '');
    const resource = suffix === basePath ? urls.mcpBase : suffix === `${basePath}/mcp` ? urls.mcpResource : undefined;
    if (!resource) return next();
    publicMetadata(res);
    res.json({
      resource,
      resource_name: 'Lore MCP endpoint',
      authorization_servers: [oauthTokens.authorizationServer(urls)],
      scopes_supported: OAUTH_SCOPES,
      bearer_methods_supported: ['header'],
      resource_documentation: `${urls.issuer}/oauth/documentation`,
      resource_description: `Send "Authorization: Bearer <access token>" from the client credentials grant. ${INTERACTIVE_SIGN_IN_UNAVAILABLE}`,
    });
  });

  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const parserError = (err as { type?: string; status?: number }).type !== undefined && (err as { status?: number }).status !== undefined;
    // A body refused while it was read (text that is not UTF-8, say) is malformed to OAuth: invalid_request.
    const unreadable = parserError && (err instanceof ValidationError ? `The request is invalid: ${err.issues.map((i) => `${i.field} ${i.message}`).join('; ')}.` : 'The request body could not be read.');
    const appError =
      unreadable
        ? oauthError((err as { status: number }).status === 413 ? 413 : 400, 'invalid_request', unreadable)
        : err instanceof AppError
          ? err
          : undefined;
    if (!appError) {
      ((res.locals.log as Logger | undefined) ?? deps.log).error({ err, path: req.path }, 'OAuth endpoint failed');
      res.status(500).json({ error: 'server_error', error_description: 'An internal error occurred.' });
      return;
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.status(appError.status).json({ error: appError.code, error_description: appError.message });
  });
  return router;
}
