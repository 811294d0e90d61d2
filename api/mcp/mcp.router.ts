import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/errors.js';
import { type OAuthScope, scopesInclude } from '../../core/oauth/oauth.schema.js';
import type { Services } from '../../runtime/services.js';
import { jsonParser } from '../text-input.js';
import { requestBase } from '../oauth/oauth.routes.js';
import { type McpRequest, bearerChallenge, callerOf, mcpBearerAuth } from './mcp-auth.js';
import { MCP_TOOLS, type McpToolServices, TOOL_SCOPES } from './mcp-tools.js';

export interface McpDeps {
  services: McpToolServices & Pick<Services, 'oauthTokens' | 'dpa'>;
  log: Logger;
  version: string;
}

/** Open SSE streams one OAuth client may hold at a time (each holds a connection and a server). */
const MAX_SSE_SESSIONS_PER_CLIENT = 20;
const SSE_KEEP_ALIVE_MS = 15_000;

const INSTRUCTIONS =
  'Lore is a multilingual knowledge-retrieval service. Use search to find passages in the knowledge bases this token can see ' +
  '(list_knowledge_bases lists them). With the mcp:write scope, ingest_document adds a text document (indexing is asynchronous: ' +
  'poll get_job with the returned job_id until it is completed).';

/** An MCP server with the tools the scopes allow: a session sees only what it may call. */
export function createMcpServer(deps: McpDeps, scopes: OAuthScope[]): McpServer {
  const server = new McpServer(
    { name: 'lore', title: 'Lore', version: deps.version },
    {
      capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/oauth-client-credentials': {} } },
      instructions: INSTRUCTIONS,
    },
  );
  for (const tool of MCP_TOOLS) {
    if (scopesInclude(scopes, tool.scope)) tool.register(server, deps.services);
  }
  return server;
}

interface JsonRpcCall {
  method?: unknown;
  params?: { name?: unknown };
}

/** The first `tools/call` in a JSON-RPC message (or batch) naming a tool the scopes do not reach. */
function toolBeyondScopes(body: unknown, scopes: OAuthScope[]): { tool: string; scope: OAuthScope } | undefined {
  for (const message of Array.isArray(body) ? (body as unknown[]) : [body]) {
    const call = message as JsonRpcCall | null;
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') continue;
    const scope = TOOL_SCOPES.get(call.params.name);
    if (scope && !scopesInclude(scopes, scope)) return { tool: call.params.name, scope };
  }
  return undefined;
}

function jsonRpcError(res: Response, status: number, code: number, message: string, data?: Record<string, unknown>): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });
}

interface SseSession {
  transport: SSEServerTransport;
  clientId: string;
}

/**
 * The MCP endpoint (spec §4, §5): Streamable HTTP at POST /mcp (stateless: every request is
 * authenticated and served on its own, so any replica can answer it) and the HTTP+SSE transport at
 * GET /mcp/sse + POST /mcp/message (a session lives in the process holding its stream). Only OAuth
 * access tokens are accepted; calling a tool beyond the token's scopes is 403 insufficient_scope.
 */
export function mcpRouter(deps: McpDeps): Router {
  const router = express.Router();
  const auth = mcpBearerAuth(deps.services);
  // Ingested content may be 10 MB, which JSON escaping can grow (as for POST /v1/documents).
  const json = jsonParser('40mb');
  const sessions = new Map<string, SseSession>();

  const template = (path: string) => (_req: Request, res: Response, next: NextFunction) => {
    res.locals.routeTemplate = path;
    next();
  };

  // DNS-rebinding protection (MCP transports): a browser request must come from the MCP server's origin.
  const sameOrigin = (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    const expected = new URL(deps.services.oauthTokens.urls(requestBase(req)).mcpBase).origin;
    if (origin !== undefined && origin !== expected) {
      res.status(403).json({ error: 'forbidden_origin', error_description: `Requests from origin ${origin} are not accepted.` });
      return;
    }
    next();
  };

  const withinScopes = (req: McpRequest, res: Response, next: NextFunction) => {
    const caller = callerOf(req.auth);
    const beyond = toolBeyondScopes(req.body, caller.scopes);
    if (!beyond) return next();
    const description = `The tool ${beyond.tool} requires the ${beyond.scope} scope; this access token has ${caller.principal.claims.scopes.join(' ')}.`;
    res.setHeader('WWW-Authenticate', bearerChallenge(caller.urls, { code: 'insufficient_scope', description, scope: beyond.scope }));
    res.status(403).json({ error: 'insufficient_scope', error_description: description, required_scope: beyond.scope });
  };

  router.post('/mcp', template('/mcp'), sameOrigin, auth, json, withinScopes, async (req: McpRequest, res: Response) => {
    const server = createMcpServer(deps, callerOf(req.auth).scopes);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  // Stateless Streamable HTTP: no server-initiated stream and no session to delete.
  router.all('/mcp', template('/mcp'), (_req: Request, res: Response) => {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: send MCP messages with POST.');
  });

  router.get('/mcp/sse', template('/mcp/sse'), sameOrigin, auth, async (req: McpRequest, res: Response) => {
    const caller = callerOf(req.auth);
    const clientId = caller.principal.claims.clientId;
    if ([...sessions.values()].filter((s) => s.clientId === clientId).length >= MAX_SSE_SESSIONS_PER_CLIENT) {
      deps.services.adapters.metrics.rateLimited('mcp_sse_sessions');
      res.setHeader('Retry-After', '60');
      res.status(429).json({ error: 'too_many_sessions', error_description: `At most ${MAX_SSE_SESSIONS_PER_CLIENT} SSE sessions per client may be open.` });
      return;
    }
    const transport = new SSEServerTransport(caller.urls.sseMessagePath, res);
    const server = createMcpServer(deps, caller.scopes);
    sessions.set(transport.sessionId, { transport, clientId });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), SSE_KEEP_ALIVE_MS);
    keepAlive.unref();
    // A stream whose client vanished mid-write fails on its own; it must not fail the process.
    res.on('error', (err) => (res.locals.log as Logger).debug({ err }, 'SSE stream failed'));
    res.on('close', () => {
      clearInterval(keepAlive);
      sessions.delete(transport.sessionId);
      void server.close();
    });
    await server.connect(transport);
  });

  router.post('/mcp/message', template('/mcp/message'), sameOrigin, auth, json, withinScopes, async (req: McpRequest, res: Response) => {
    const sessionId = (req.query as Record<string, unknown>).sessionId;
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    // A session belongs to the client that opened it; to anyone else it does not exist.
    if (!session || session.clientId !== callerOf(req.auth).principal.claims.clientId) {
      jsonRpcError(res, 404, -32001, 'Session not found: open a stream with GET /mcp/sse first.');
      return;
    }
    await session.transport.handlePostMessage(req, res, req.body);
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON.');
    if (type === 'entity.too.large') return jsonRpcError(res, 413, -32600, 'The message is too large.');
    // Refused input (text that is not UTF-8, a charset other than UTF-8): its status, and Lore's error in `data`.
    if (err instanceof AppError) {
      const code = type === 'entity.verify.failed' ? -32700 : -32600;
      return jsonRpcError(res, err.status, code, `${code === -32700 ? 'Parse error' : 'Invalid request'}: ${err.message}`, { error: err.code, ...err.extra });
    }
    ((res.locals.log as Logger | undefined) ?? deps.log).error({ err }, 'MCP request failed');
    jsonRpcError(res, 500, -32603, 'Internal error.');
  });
  return router;
}
