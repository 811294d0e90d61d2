/**
 * `npm run operator`: the Kubernetes operator. It reconciles Tenant and SubTenant resources into
 * Lore (through its service layer, on the same PostgreSQL database as the API: DATABASE_URL), the
 * vector index (Qdrant collections), Keycloak (KEYCLOAK_URL; else Lore's own authorization server)
 * and Secrets. Replicas elect one leader through a Lease; all of them watch. It reads the cluster
 * credentials of its pod's service account (or KUBECONFIG outside a cluster) and serves `/metrics`,
 * `/healthz` and `/readyz` on OPERATOR_PORT. SIGTERM and SIGINT stop it after the reconciles in
 * progress, releasing the lease so another replica takes over at once.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, loadConfig } from '../core/config.js';
import { prepareSchema } from '../core/db/migrator.js';
import { openDatabase } from '../core/db/open.js';
import { createLogger } from '../core/logger.js';
import { mcpAudiences, oauthUrls } from '../core/oauth/oauth-urls.js';
import { createRuntime } from '../runtime/runtime.js';
import type { IdentityProvider } from './identity-provider.js';
import { KeycloakIdentityProvider } from './keycloak.identity-provider.js';
import { KubeApi } from './kube.js';
import { lorePlatform } from './lore-platform.js';
import { LoreIdentityProvider } from './lore.identity-provider.js';
import { Operator } from './operator.js';
import { createOperatorMetrics } from './operator-metrics.js';
import { serveProbes } from './probes.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.database.kind !== 'postgres') throw new ConfigError('The operator needs DATABASE_URL: it manages the tenants of the PostgreSQL database the API serves.');
  // Tokens' audience and the built-in token endpoint are absolute URLs: they cannot come from a request here.
  const base = config.oauth.mcpUrl ?? config.publicBaseUrl ?? failConfig('MCP_URL or PUBLIC_BASE_URL is required: MCP clients get it as their tokens\' audience.');
  const urls = oauthUrls(config.oauth, base);
  const log = createLogger(config).child({ component: 'operator' });
  const db = await openDatabase(config);
  await prepareSchema(db, config.migrateOnStart);
  const runtime = await createRuntime(db, config, log);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const kube = new KubeApi(kubeConfig, 'lore.dev/operator', config.operator.identity);
  const { keycloak } = config.operator;
  const identity: IdentityProvider = keycloak
    ? new KeycloakIdentityProvider({ baseUrl: keycloak.url, realm: keycloak.realm, adminClientId: keycloak.adminClientId, adminClientSecret: keycloak.adminClientSecret })
    : new LoreIdentityProvider(runtime.services.oauthClients, urls.tokenEndpoint);
  const metrics = createOperatorMetrics();
  const operator = new Operator({
    kube,
    platform: lorePlatform(runtime.services),
    identity,
    mcpAudiences: mcpAudiences(urls),
    log,
    now: () => new Date(),
    config: config.operator,
    metrics,
  });
  const probes = serveProbes({ port: config.operator.port, host: config.host, registry: metrics.registry, isReady: () => operator.isReady(), isLeader: () => operator.isLeader() });
  await operator.start();
  log.info({ namespaces: config.operator.watchNamespaces.length ? config.operator.watchNamespaces : 'all', identity: config.operator.identity, identityProvider: identity.kind }, 'operator running');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await operator.stop();
  probes.close();
  await runtime.close();
  await db.close();
}

function failConfig(message: string): never {
  throw new ConfigError(message);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `The operator stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
