import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { DocumentService } from './documents/document.service.js';
import { HealthService } from './health/health.service.js';
import { ApiKeyService } from './keys/api-key.service.js';
import { KnowledgeBaseService } from './knowledge-bases/knowledge-base.service.js';
import { TenantService } from './tenants/tenant.service.js';

export interface Services {
  db: Database;
  keys: ApiKeyService;
  tenants: TenantService;
  knowledgeBases: KnowledgeBaseService;
  documents: DocumentService;
  health: HealthService;
}

/** Wires the domain services by hand: the one place that decides what depends on what. */
export function createServices(db: Database, config: Pick<Config, 'apiKeyPrefix'>): Services {
  const keys = new ApiKeyService(db, config.apiKeyPrefix);
  const knowledgeBases = new KnowledgeBaseService(db);
  return {
    db,
    keys,
    tenants: new TenantService(db, keys),
    knowledgeBases,
    documents: new DocumentService(db, knowledgeBases),
    health: new HealthService(db),
  };
}
