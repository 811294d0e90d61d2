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

  it('marks health endpoints as unauthenticated', () => {
    assert.deepEqual(doc.paths['/health/live'].get.security, []);
    assert.deepEqual(doc.paths['/v1/auth/keys'].post.security, [{ ApiKey: [] }]);
    assert.match(doc.paths['/v1/auth/keys'].post.description, /Minimum role: admin/);
  });
});
