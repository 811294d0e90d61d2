import assert from 'node:assert/strict';
import { z } from 'zod';
import type { RouteSpec } from '../../api/route.js';
import { RouteTable, schemaMismatches } from '../support/response-schemas.js';

/** The parts of a route the test client's checks read; the handler never runs here. */
function spec(method: RouteSpec['method'], path: string, status: number, response?: RouteSpec['response']): RouteSpec {
  return { method, path, operationId: `${method} ${path}`, summary: '', tag: 'Test', access: 'public', status, response, handler: () => Promise.resolve() };
}

const item = z.object({ id: z.string(), score: z.number(), tags: z.record(z.string(), z.string()) });

describe("the test client's response schema checks", () => {
  const table = new RouteTable([
    spec('post', '/v1/documents/upload', 202, { description: 'upload', schema: z.object({ job_id: z.string() }) }),
    spec('get', '/v1/documents/{id}', 200, { description: 'document', schema: item }),
    spec('get', '/v1/documents/{id}/download', 200, { description: 'file', schema: z.string(), contentType: 'application/octet-stream' }),
    spec('delete', '/v1/documents/{id}', 204),
    spec('get', '/v1/items', 200, { description: 'items', schema: z.array(item) }),
  ]);
  const json = 'application/json; charset=utf-8';

  it('finds the route that answers a path as Express does: first match, one segment per parameter, any case, a trailing slash, no query', () => {
    assert.equal(table.match('POST', '/v1/documents/upload')?.path, '/v1/documents/upload');
    assert.equal(table.match('GET', '/v1/documents/upload')?.path, '/v1/documents/{id}');
    assert.equal(table.match('GET', '/V1/Documents/abc/?x=1')?.path, '/v1/documents/{id}');
    assert.equal(table.match('GET', '/v1/documents/abc/download')?.path, '/v1/documents/{id}/download');
    assert.equal(table.match('GET', '/v1/documents/a/b'), undefined);
    assert.equal(table.match('GET', '/v1/documents/'), undefined);
    assert.equal(table.match('PUT', '/v1/documents/abc'), undefined);
  });

  it('refuses a success body its route does not declare, naming the route, the field and what it held', () => {
    assert.throws(
      () => table.check('GET', '/v1/documents/d1', { status: 200, contentType: json, body: { id: 'd1', score: '0.5', tags: {} } }),
      (error: Error) => {
        assert.match(error.message, /^GET \/v1\/documents\/\{id\} \(get \/v1\/documents\/\{id\}\) answered 200 with a body that does not match/);
        assert.match(error.message, /score: .*expected number.* \(returned: "0\.5"\)/);
        return true;
      },
    );
    assert.throws(
      () => table.check('GET', '/v1/items', { status: 200, contentType: json, body: [{ id: 'a', score: 1, tags: {} }, { id: 'b', score: 2, tags: { k: 'v' }, extra: [1] }] }),
      /\[1\]\.extra: not declared by the schema \(returned: \[1\]\)/,
    );
    assert.throws(() => table.check('GET', '/v1/items', { status: 200, contentType: 'text/html', body: '<p>' }), /with text\/html, not the JSON body/);
  });

  it('leaves alone what the schema does not describe: other statuses, other content types, routes without a schema, unknown paths', () => {
    table.check('GET', '/v1/documents/d1', { status: 200, contentType: json, body: { id: 'd1', score: 0.5, tags: { any: 'key' } } });
    table.check('GET', '/v1/documents/d1', { status: 404, contentType: json, body: { error: 'not_found' } });
    table.check('HEAD', '/v1/documents/d1', { status: 200, contentType: json, body: '' });
    table.check('GET', '/v1/documents/d1/download', { status: 200, contentType: 'application/octet-stream', body: Buffer.from('x') });
    table.check('DELETE', '/v1/documents/d1', { status: 204, contentType: '', body: '' });
    table.check('GET', '/v1/nothing', { status: 200, contentType: json, body: 42 });
  });

  it('lists every problem of a body against a schema, and nothing for a body that matches', () => {
    assert.deepEqual(schemaMismatches(item, { id: 'x', score: 1, tags: {} }), []);
    assert.deepEqual(schemaMismatches(z.object({ a: z.unknown() }).catchall(z.unknown()), { a: { deep: 1 }, b: 2 }), []);
    const problems = schemaMismatches(item, { score: null, tags: { k: 1 }, more: true });
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(problems.join('\n'), /^id: .* \(returned: nothing\)$/m);
    assert.match(problems.join('\n'), /^tags\.k: .* \(returned: 1\)$/m);
    assert.deepEqual(schemaMismatches(z.array(z.number()), 'text').map((p) => p.split(':')[0]), ['(the body)']);
  });
});
