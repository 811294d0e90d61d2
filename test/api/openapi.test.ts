import assert from 'node:assert/strict';
import { type TestApp, client, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const [database] = testDatabases();

describe('OpenAPI document', () => {
  let app: TestApp;
  let doc: any;
  before(async () => {
    app = await startTestApp(await database!.get());
    doc = (await client(app.url)('GET', '/v1/openapi.json')).body;
  });
  after(() => app.close());

  it('is OpenAPI 3.1 with a bearer security scheme', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: 'http',
      scheme: 'bearer',
      description: doc.components.securitySchemes.ApiKey.description,
    });
    assert.deepEqual(doc.security, [{ ApiKey: [] }]);
  });

  it('documents every public route the app mounts, with stable unique operation ids, and nothing internal', () => {
    const operations: Array<[string, string, string]> = [];
    for (const [path, methods] of Object.entries<Record<string, { operationId: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) operations.push([method, path, op.operationId]);
    }
    const ids = operations.map(([, , id]) => id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(!operations.some(([, path]) => path.startsWith('/internal') || path.startsWith('/oauth') || path.startsWith('/mcp')));
    const expected = [
      ['post', '/v1/knowledge-bases', 'createKnowledgeBase'],
      ['get', '/v1/knowledge-bases', 'listKnowledgeBases'],
      ['patch', '/v1/knowledge-bases/{kb_id}', 'updateKnowledgeBase'],
      ['get', '/v1/knowledge-bases/{kb_id}/documents', 'listKnowledgeBaseDocuments'],
      ['post', '/v1/auth/keys', 'createApiKey'],
      ['get', '/v1/auth/keys', 'listApiKeys'],
      ['delete', '/v1/auth/keys/{id}', 'revokeApiKey'],
      ['get', '/health/live', 'getLiveness'],
      ['get', '/health/ready', 'getReadiness'],
      ['get', '/health/index', 'getIndexHealth'],
      ['post', '/v1/documents', 'ingestDocument'],
      ['post', '/v1/documents/upload', 'uploadDocument'],
      ['get', '/v1/documents/{id}', 'getDocument'],
      ['get', '/v1/documents/{id}/download', 'downloadDocument'],
      ['delete', '/v1/documents/{id}', 'deleteDocument'],
      ['get', '/v1/jobs/{id}', 'getJob'],
      ['post', '/v1/query', 'query'],
      ['get', '/v1/usage', 'getUsage'],
      ['get', '/v1/billing/usage', 'getBillingUsage'],
      ['get', '/v1/billing/events', 'listBillingEvents'],
      ['post', '/v1/billing/upgrade', 'upgradePlan'],
      ['post', '/v1/billing/downgrade', 'downgradePlan'],
      ['post', '/v1/billing/cancel', 'cancelPlan'],
      ['delete', '/v1/billing/cancel', 'retractCancellation'],
      ['post', '/v1/billing/interval', 'setBillingInterval'],
      ['post', '/v1/billing/renew', 'renewAnnualPlan'],
      ['get', '/v1/dpa/status', 'getDpaStatus'],
      ['post', '/v1/dpa/accept', 'acceptDpa'],
      ['post', '/v1/account/export', 'exportAccount'],
      ['delete', '/v1/account', 'deleteAccount'],
      ['post', '/v1/sub-tenants', 'createSubTenant'],
      ['get', '/v1/sub-tenants', 'listSubTenants'],
      ['get', '/v1/sub-tenants/{id}', 'getSubTenant'],
      ['patch', '/v1/sub-tenants/{id}', 'updateSubTenant'],
      ['delete', '/v1/sub-tenants/{id}', 'deleteSubTenant'],
      ['post', '/v1/sub-tenants/{id}/api-keys', 'createSubTenantKey'],
      ['get', '/v1/sub-tenants/{id}/api-keys', 'listSubTenantKeys'],
      ['delete', '/v1/sub-tenants/{id}/api-keys/{key_id}', 'revokeSubTenantKey'],
      ['get', '/v1/sub-tenants/{id}/usage', 'getSubTenantUsage'],
      ['get', '/v1/usage/breakdown', 'getUsageBreakdown'],
      ['get', '/v1/usage/users', 'getActiveUsers'],
      ['patch', '/v1/sub-tenants/{id}/users/{user_id}/preferences', 'setUserPreferences'],
      ['post', '/v1/translate', 'translate'],
      ['post', '/v1/translate/batch', 'translateBatch'],
      ['post', '/v1/detect', 'detectLanguage'],
      ['get', '/v1/translation/health', 'getTranslationHealth'],
      ['get', '/v1/translation/languages', 'listTranslationLanguages'],
      ['get', '/v1/tenant/settings', 'getTenantSettings'],
      ['patch', '/v1/tenant/settings', 'updateTenantSettings'],
    ];
    for (const op of expected) assert.ok(operations.some((o) => o.join() === op.join()), `missing ${op.join(' ')}`);
  });

  it('derives request schemas from the validation schemas', () => {
    const create = doc.paths['/v1/knowledge-bases'].post;
    const schema = create.requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    assert.deepEqual(resolved.properties.dimensions, { type: 'integer', minimum: 1, maximum: 4096, default: 1024 });
    assert.deepEqual(resolved.properties.name, { type: 'string', minLength: 1, maxLength: 200 });
    assert.deepEqual(resolved.required, ['name']);
    assert.equal(resolved.additionalProperties, false);
    assert.ok(create.responses['201']);
    assert.ok(create.responses['403']);
    assert.ok(create.responses['422']);
    const patch = doc.paths['/v1/knowledge-bases/{kb_id}'].patch;
    assert.deepEqual(patch.parameters.map((p: { name: string; in: string }) => [p.in, p.name]), [['path', 'kb_id']]);
    assert.ok(patch.responses['204']);
  });

  it('documents the multipart upload and the query headers', () => {
    const upload = doc.paths['/v1/documents/upload'].post.requestBody.content['multipart/form-data'];
    assert.ok(upload.schema.properties.file && upload.schema.properties.metadata);
    const query = doc.paths['/v1/query'].post;
    assert.ok(query.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'x-user-id'));
    assert.ok(query.responses['429'] && query.responses['402']);
  });

  it('documents the translation errors and roles', () => {
    const translate = doc.paths['/v1/translate'].post;
    for (const status of ['200', '400', '401', '422', '500', '503']) assert.ok(translate.responses[status], status);
    assert.match(translate.description, /Minimum role: read/);
    assert.match(doc.paths['/v1/detect'].post.description, /Minimum role: any key/);
    assert.match(doc.paths['/v1/tenant/settings'].patch.description, /Minimum role: admin/);
    const health = doc.paths['/v1/translation/health'].get.responses['200'].content['application/json'].schema;
    const resolved = health.$ref ? doc.components.schemas[health.$ref.split('/').pop()] : health;
    assert.deepEqual(resolved.properties.status.enum, ['healthy', 'degraded', 'disabled']);
  });

  it('marks health endpoints as unauthenticated', () => {
    assert.deepEqual(doc.paths['/health/live'].get.security, []);
    assert.deepEqual(doc.paths['/v1/auth/keys'].post.security, [{ ApiKey: [] }]);
    assert.match(doc.paths['/v1/auth/keys'].post.description, /Minimum role: admin/);
  });
});
