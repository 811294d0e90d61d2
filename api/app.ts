import { type Server, createServer } from 'node:http';
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../core/config.js';
import { errors } from '../core/errors.js';
import type { Services } from '../runtime/services.js';
import { jsonParser, parseQuery } from './text-input.js';
import { clientErrorHandler, errorHandler } from './error-handler.js';
import { type HttpMetrics, createMetrics, metricsEndpoint, observeRequests } from './metrics.js';
import { BURST_LIMITS } from '../core/plans.js';
import { apiReferenceRouter } from './api-reference.js';
import { landingRouter } from './landing.router.js';
import { apiKeyGuard, operatorGuard } from './middleware/auth.js';
import { perIpLimit } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import { buildOpenApiDocument } from './openapi.js';
import { type RouteSpec, mountRoutes } from './route.js';
import { accountRoutes } from './routes/account.routes.js';
import { apiKeyRoutes } from './routes/api-key.routes.js';
import { billingRoutes } from './routes/billing.routes.js';
import { corpusInternalRoutes, corpusRoutes } from './routes/corpus.routes.js';
import { dpaRoutes } from './routes/dpa.routes.js';
import { subTenantRoutes } from './routes/sub-tenant.routes.js';
import { usageRoutes } from './routes/usage.routes.js';
import { healthRoutes } from './routes/health.routes.js';
import { internalRoutes, oauthClientInternalRoutes } from './routes/internal.routes.js';
import { mcpRouter } from './mcp/mcp.router.js';
import { oauthRouter } from './oauth/oauth.routes.js';
import { addonRoutes } from './routes/addon.routes.js';
import { documentRoutes } from './routes/document.routes.js';
import { knowledgeBaseRoutes } from './routes/knowledge-base.routes.js';
import { portalRouter } from './portal/portal.router.js';
import { secretScanningRouter } from './partners/secret-scanning.router.js';
import { queryRoutes } from './routes/query.routes.js';
import { translationRoutes } from './routes/translation.routes.js';

export interface AppDeps {
  config: Pick<Config, 'adminToken' | 'metricsEnabled' | 'metricsToken' | 'publicBaseUrl' | 'trustedProxies' | 'portal'>;
  services: Services;
  log: Logger;
  version: string;
  /** The process's metrics registry (its runtime's domain metrics are in it): the app adds its HTTP metrics and serves it at /metrics. */
  registry: Registry;
}

export interface App {
  express: express.Express;
  metrics: HttpMetrics;
  routes: RouteSpec[];
  /** An HTTP server for the app, listening; requests its parser refuses are answered in the error shape too. */
  listen(port: number, host: string): Server;
}

/** Builds the HTTP application from its dependencies; no module-level state. */
export function createApp(deps: AppDeps): App {
  const { services, log, config } = deps;
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is believed only from the configured proxies (for per-IP limits and logs).
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.set('query parser', parseQuery);

  const metrics = createMetrics(deps.registry, () => services.jobs.backlog(), () => services.queries.load);
  const probes = healthRoutes(services);
  const routes: RouteSpec[] = [
    ...probes,
    ...knowledgeBaseRoutes(services),
    ...documentRoutes(services),
    ...queryRoutes(services),
    ...usageRoutes(services),
    ...subTenantRoutes(services),
    ...billingRoutes(services),
    ...dpaRoutes(services),
    ...corpusRoutes(services),
    ...translationRoutes(services),
    ...addonRoutes(services),
    ...accountRoutes(services, config.publicBaseUrl),
    ...apiKeyRoutes(services),
    ...internalRoutes(services),
    ...oauthClientInternalRoutes(services),
    ...corpusInternalRoutes(services),
  ];
  const openapi = buildOpenApiDocument(routes, { version: deps.version, serverUrl: config.publicBaseUrl });

  const guards = { operator: operatorGuard(config.adminToken), apiKey: apiKeyGuard(services.keys, services.dpa, services.portal) };

  app.use(requestId(log));
  app.use(observeRequests(metrics));
  // Health probes and metrics come before every rate limit: a kubelet or Prometheus sharing an
  // address with busy clients must never be refused (a throttled liveness probe restarts a healthy pod).
  const operational = express.Router();
  mountRoutes(operational, probes, guards);
  if (config.metricsEnabled) operational.get('/metrics', metricsEndpoint(metrics, config.metricsToken));
  app.use(operational);
  app.use(perIpLimit(services.adapters, BURST_LIMITS.perIpPerSecond));
  // OAuth and MCP take OAuth credentials, parse their own bodies, and answer in their protocols' error formats.
  app.use(oauthRouter({ services, log }));
  app.use(mcpRouter({ services, log, version: deps.version }));
  // Leaked-key reports are signed over their raw bytes, so they are read before any body parser.
  app.use(secretScanningRouter({ services, log: log.child({ component: 'secret-scanning' }) }));
  // The web portal: HTML pages and forms of its own; its script calls the REST routes below.
  app.use(portalRouter({ services, routes, config: config.portal, log: log.child({ component: 'portal' }) }));
  // Document content may be 10 MB, which JSON escaping can grow; everything else stays small.
  app.use('/v1/documents', jsonParser('40mb'));
  // A load of corpus records carries up to 10,000 of them.
  app.use('/internal/v1/corpora', jsonParser('40mb'));
  // A batch holds up to 100 texts of 5,000 characters.
  app.use('/v1/translate', jsonParser('4mb'));
  app.use(jsonParser('1mb'));

  const router = express.Router();
  mountRoutes(
    router,
    routes.filter((r) => !probes.includes(r)),
    guards,
  );
  router.get('/v1/openapi.json', (_req: Request, res: Response) => {
    res.locals.routeTemplate = '/v1/openapi.json';
    res.json(openapi);
  });
  app.use(router);
  app.use(apiReferenceRouter());
  app.use(landingRouter());
  app.use(() => {
    throw errors.notFound('route');
  });
  app.use(errorHandler(log));
  const listen = (port: number, host: string): Server => {
    const server = createServer(app);
    server.on('clientError', clientErrorHandler(log));
    return server.listen(port, host);
  };
  return { express: app, metrics, routes, listen };
}
