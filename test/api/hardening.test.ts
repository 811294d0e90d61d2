import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../core/logger.js';
import { type TestApp, client, createTenant, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

/**
 * Sends a raw body, as an attacker's hand-made request would be. Like client(), it waits out the
 * per-key burst limit on /v1/documents (these tests send many uploads in quick succession).
 */
async function rawPost(url: string, key: string, contentType: string, body: string | Buffer, headers: Record<string, string> = {}) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers }, body });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as Record<string, any>) : {};
    if (res.status !== 429 || parsed.error !== 'rate_limit_exceeded' || attempt >= 10) return { status: res.status, body: parsed };
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

/** Bytes from text (as UTF-8), byte values and buffers, in order: for bodies holding what no string can. */
function bytes(...pieces: Array<string | number[] | Buffer>): Buffer {
  return Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
}

/** A multipart body by hand: every part exactly as given, so it can be cut or broken anywhere. */
function multipart(parts: { name: string; filename?: string; type?: string; data: string }[], boundary = 'XYZ'): string {
  return (
    parts
      .map((p) => {
        // A file name with characters a quoted string cannot hold goes as RFC 5987 `filename*`.
        const filename = p.filename === undefined ? '' : /^[\x20-\x7e]*$/.test(p.filename) ? `; filename="${p.filename}"` : `; filename*=UTF-8''${encodeURIComponent(p.filename)}`;
        const disposition = `form-data; name="${p.name}"${filename}`;
        return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n${p.data}\r\n`;
      })
      .join('') + `--${boundary}--\r\n`
  );
}

/** Sends bytes on a fresh connection and returns all the server answers until it closes. */
function rawExchange(url: string, bytes: string): Promise<{ status: number; type: string; body: Record<string, any> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
        type: /^content-type: (.*)$/im.exec(head)?.[1] ?? '',
        body: body ? (JSON.parse(body) as Record<string, any>) : {},
      });
    });
  });
}

/** Captures a logger's JSON lines in memory. */
function capturedLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ logLevel: 'debug' }, sink), text: () => lines.join('') };
}

for (const database of testDatabases()) {
  describe(`hardening: hostile input never stops Lore or answers 500 [${database.name}]`, () => {
    let app: TestApp;
    let tenant: { id: string; key: string };
    let kb: string;
    const multipartType = 'multipart/form-data; boundary=XYZ';
    before(async () => {
      app = await startTestApp(await database.get());
      tenant = await createTenant(app, 'enterprise');
      kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'hardening' })).body.id;
    });
    after(() => app.close());

    const alive = async () => assert.equal((await client(app.url)('GET', '/health/live')).status, 200);
    const upload = (body: string) => rawPost(`${app.url}/v1/documents/upload`, tenant.key, multipartType, body);

    it('answers a multipart body that ends inside the file part with 400 invalid_multipart, and stays up', async () => {
      const truncated = '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nabc';
      const res = await upload(truncated);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_multipart');
      await alive();
    });

    it('answers the same with a valid metadata part before the truncated file part', async () => {
      const metadata = `--XYZ\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify({ knowledge_base_id: kb })}\r\n`;
      const res = await upload(`${metadata}--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nabc`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_multipart');
      await alive();
      const good = await upload(multipart([{ name: 'metadata', data: JSON.stringify({ knowledge_base_id: kb }) }, { name: 'file', filename: 'a.txt', type: 'text/plain', data: 'still working' }]));
      assert.equal(good.status, 202);
      assert.equal((await waitForJob(app, tenant.key, good.body.job_id)).status, 'completed');
    });

    it('refuses a part given twice, truncated other file parts, and an unterminated body, with 400', async () => {
      const meta = { name: 'metadata', data: JSON.stringify({ knowledge_base_id: kb }) };
      const file = { name: 'file', filename: 'a.txt', type: 'text/plain', data: 'text' };
      for (const body of [
        multipart([meta, meta, file]),
        multipart([meta, file, file]),
        // A second, ignored file part cut off mid-way.
        multipart([meta, file]).replace(/--XYZ--\r\n$/, '--XYZ\r\nContent-Disposition: form-data; name="other"; filename="b"\r\n\r\nxx'),
        // No closing boundary.
        multipart([meta, file]).replace(/--XYZ--\r\n$/, ''),
        // Headers never end.
        '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/pl',
      ]) {
        const res = await upload(body);
        assert.equal(res.status, 400, body);
        assert.equal(res.body.error, 'invalid_multipart', body);
      }
      await alive();
    });

    it('survives a client that disconnects in the middle of an upload', async () => {
      const { port } = new URL(app.url);
      await new Promise<void>((resolve) => {
        const req = request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/documents/upload',
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': multipartType, 'content-length': '100000' },
        });
        req.on('error', () => resolve());
        req.write('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nabc');
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
      await alive();
    });

    it('answers requests the HTTP parser refuses (headers too large, bytes that are not HTTP) in the error shape', async () => {
      const tooLong = await rawExchange(app.url, `GET /v1/knowledge-bases/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.equal(tooLong.status, 431);
      assert.match(tooLong.type, /^application\/json/);
      assert.equal(tooLong.body.error, 'request_header_too_large');
      assert.equal(typeof tooLong.body.request_id, 'string');
      const notHttp = await rawExchange(app.url, 'GET / HTTP/1.1\r\nX-Bad: a\u0000b\r\n\r\n');
      assert.equal(notHttp.status, 400);
      assert.equal(notHttp.body.error, 'bad_request');
      assert.equal(typeof notHttp.body.message, 'string');
      await alive();
    });

    it('refuses NUL in every text field with 422 naming the field, and stores nothing', async () => {
      const api = client(app.url, tenant.key);
      const sub = (await api('POST', '/v1/sub-tenants', { name: 'NUL probe' })).body.id as string;
      const doc = (title: string, content: string, tags?: Record<string, string>) => ({ knowledge_base_id: kb, title, content, ...(tags ? { tags } : {}) });
      const cases: [string, string, unknown, string][] = [
        ['POST', '/v1/knowledge-bases', { name: 'a\u0000b' }, 'body.name'],
        ['PATCH', `/v1/knowledge-bases/${kb}`, { name: 'a\u0000b' }, 'body.name'],
        ['POST', '/v1/documents', doc('t\u0000', 'content'), 'body.title'],
        ['POST', '/v1/documents', doc('title', 'con\u0000tent'), 'body.content'],
        ['POST', '/v1/documents', doc('title', 'content', { 'k\u0000': 'v' }), 'body.tags'],
        ['POST', '/v1/documents', doc('title', 'content', { k: 'v\u0000' }), 'body.tags.k'],
        ['POST', '/v1/query', { query: 'tea\u0000' }, 'body.query'],
        ['POST', '/v1/sub-tenants', { name: 'x\u0000' }, 'body.name'],
        ['POST', '/v1/sub-tenants', { name: 'x', external_id: 'e\u0000' }, 'body.external_id'],
        ['PATCH', `/v1/sub-tenants/${sub}`, { name: 'x\u0000' }, 'body.name'],
        ['POST', '/v1/auth/keys', { name: 'k\u0000', role: 'read' }, 'body.name'],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await api(method, path, body);
        assert.equal(res.status, 422, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, 'validation_failed');
        assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), [field], JSON.stringify(res.body));
        assert.match(res.body.fields[0].message, /NUL/);
      }
      const names = (await api('GET', '/v1/knowledge-bases')).body.map((k: { name: string }) => k.name);
      assert.deepEqual(names, ['hardening']);
      // Only the upload of an earlier test, nothing of these.
      assert.deepEqual((await api('GET', `/v1/knowledge-bases/${kb}/documents`)).body.map((d: { title: string }) => d.title), ['a']);
    });

    it('refuses NUL in upload metadata and in the file name, and a text file holding NUL, with 422', async () => {
      const file = { name: 'file', filename: 'a.txt', type: 'text/plain', data: 'text' };
      const cases: [string, string][] = [
        [multipart([{ name: 'metadata', data: JSON.stringify({ knowledge_base_id: kb, title: 'T\u0000' }) }, file]), 'metadata.title'],
        [multipart([{ name: 'metadata', data: JSON.stringify({ knowledge_base_id: kb }) }, { ...file, filename: 'a\u0000.txt' }]), 'file.filename'],
        [multipart([{ name: 'metadata', data: JSON.stringify({ knowledge_base_id: kb }) }, { ...file, data: 'te\u0000xt' }]), 'file'],
      ];
      for (const [body, field] of cases) {
        const res = await upload(body);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), [field]);
      }
    });

    it('reads a UTF-16 text file by its byte-order mark instead of dropping its zero bytes', async () => {
      const text = 'Grüße aus Köln: Teezeit.';
      const data = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      const form = new FormData();
      form.append('metadata', JSON.stringify({ knowledge_base_id: kb }));
      form.append('file', new Blob([data], { type: 'text/plain' }), 'utf16.txt');
      const res = await client(app.url, tenant.key)('POST', '/v1/documents/upload', form);
      assert.equal(res.status, 202);
      assert.equal((await client(app.url, tenant.key)('GET', `/v1/documents/${res.body.document_id}`)).body.content, text);
    });

    it('refuses a lone surrogate (invalid Unicode) with 422, and takes a valid pair', async () => {
      const body = `{"knowledge_base_id":"${kb}","title":"bad \\ud800 title","content":"text"}`;
      const res = await rawPost(`${app.url}/v1/documents`, tenant.key, 'application/json', body);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.fields, [{ field: 'body.title', message: 'must be valid Unicode (it contains an unpaired surrogate)' }]);
      const pair = await rawPost(`${app.url}/v1/knowledge-bases`, tenant.key, 'application/json', '{"name":"tea \\ud83c\\udf75"}');
      assert.equal(pair.status, 201);
    });

    it('names what is at fault in fields on every 422, not only on validation_failed', async () => {
      const api = client(app.url, tenant.key);
      const meta = { name: 'metadata', data: JSON.stringify({ knowledge_base_id: kb }) };
      const file = (type: string, data: string) => ({ name: 'file', filename: 'f', type, data });
      const cases: [{ status: number; body: any }, string, string][] = [
        [await api('POST', '/v1/billing/upgrade', { plan: 'gold' }), 'invalid_plan', 'body.plan'],
        [await api('POST', '/v1/dpa/accept', { version: 99 }), 'dpa_version_mismatch', 'body.version'],
        [await upload(multipart([meta, file('image/png', 'png')])), 'unsupported_file_type', 'file.content_type'],
        [await upload(multipart([meta, file('application/pdf', 'not a pdf')])), 'pdf_extraction_failed', 'file'],
        [await upload(multipart([meta, file('text/plain', '   ')])), 'empty_document', 'file'],
      ];
      for (const [res, code, field] of cases) {
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.error, code);
        assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), [field], JSON.stringify(res.body));
        assert.equal(typeof res.body.fields[0].message, 'string');
      }
    });

    it('refuses text that is not UTF-8 in JSON, query strings, paths and headers with 422 naming the field, and stores nothing', async () => {
      const t = await createTenant(app, 'enterprise');
      const api = client(app.url, t.key);
      const home = (await api('POST', '/v1/knowledge-bases', { name: 'home' })).body.id as string;
      const doc = (title: string | number[], content: string | number[], tags: string | Buffer = '{}') =>
        bytes(`{"knowledge_base_id":"${home}","title":"`, title, '","content":"', content, '","tags":', tags, '}');
      const cases: [string, Buffer, string, RegExp?][] = [
        ['/v1/knowledge-bases', bytes('{"name":"a', [0xff, 0xfe], 'b"}'), 'body.name'],
        ['/v1/documents', doc('t', ['c'.charCodeAt(0), 0xc0, 0xaf]), 'body.content'], // an overlong '/'
        ['/v1/documents', doc([0xed, 0xa0, 0x80], 'c'), 'body.title'], // a surrogate, CESU-8 style
        ['/v1/documents', doc('t', 'c', bytes('{"k":"v', [0xe2, 0x82], '"}')), 'body.tags.k'], // a sequence cut short
        ['/v1/documents', doc('t', 'c', bytes('{"k', [0xff], '":"v"}')), 'body.tags', /^has a key that /],
        ['/v1/query', bytes('{"query":"tea"}', [0xff]), 'body'], // outside any string
      ];
      for (const [path, body, field, message = /^must be valid UTF-8/] of cases) {
        const res = await rawPost(`${app.url}${path}`, t.key, 'application/json', body);
        assert.equal(res.status, 422, `${path} ${body.toString('latin1')}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, 'validation_failed');
        assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), [field], JSON.stringify(res.body));
        assert.match(res.body.fields[0].message, message);
      }
      // A U+FFFD the client sent is text like any other.
      assert.equal((await rawPost(`${app.url}/v1/knowledge-bases`, t.key, 'application/json', bytes('{"name":"mark ', [0xef, 0xbf, 0xbd], '"}'))).status, 201);
      // JSON is UTF-8 (RFC 8259): another charset is refused, not decoded.
      const utf16 = await rawPost(`${app.url}/v1/knowledge-bases`, t.key, 'application/json; charset=utf-16le', Buffer.from('{"name":"x"}', 'utf16le'));
      assert.deepEqual([utf16.status, utf16.body.error], [415, 'unsupported_media_type']);

      const get = async (path: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${t.key}`, ...headers } });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const query = await get('/v1/account/exports/00000000-0000-4000-8000-000000000000?expires=%FF&signature=x');
      assert.equal(query.status, 422, JSON.stringify(query.body));
      assert.deepEqual(query.body.fields.map((f: { field: string }) => f.field), ['query.expires']);
      const path = await get('/v1/knowledge-bases/%C3%28');
      assert.equal(path.status, 422, JSON.stringify(path.body));
      assert.deepEqual(path.body.fields.map((f: { field: string }) => f.field), ['path']);

      // Headers arrive as bytes: read as UTF-8, so a name with an accent is stored as sent, and bytes that are not UTF-8 are refused.
      const latin1 = (...pieces: Array<string | number[]>) => bytes(...pieces).toString('latin1');
      const search = (userId: string) => rawPost(`${app.url}/v1/query`, t.key, 'application/json', '{"query":"tea"}', { 'x-user-id': userId });
      const badUser = await search(latin1('u', [0xff]));
      assert.equal(badUser.status, 422);
      assert.deepEqual(badUser.body.fields.map((f: { field: string }) => f.field), ['header.x-user-id']);
      assert.equal((await search(latin1('José'))).status, 200);
      const accept = (by: string) => rawPost(`${app.url}/v1/dpa/accept`, t.key, 'application/json', '{"version":1}', { 'x-accepted-by': by });
      const badAcceptance = await accept(latin1('Zo', [0xeb]));
      assert.equal(badAcceptance.status, 422);
      assert.deepEqual(badAcceptance.body.fields.map((f: { field: string }) => f.field), ['header.x-accepted-by']);
      assert.equal((await accept(latin1('Zoë'))).status, 200);

      assert.deepEqual((await api('GET', '/v1/knowledge-bases')).body.map((k: { name: string }) => k.name).sort(), ['home', 'mark \uFFFD']);
      assert.deepEqual((await api('GET', `/v1/knowledge-bases/${home}/documents`)).body, []);
      const users = await app.db.query<{ user_id: string }>("SELECT user_id FROM usage_events WHERE tenant_id = $1 AND event_type = 'query'", [t.id]);
      assert.deepEqual(users.rows.map((r) => r.user_id), ['José']);
      const acceptances = await app.db.query<{ accepted_by: string }>('SELECT accepted_by FROM dpa_acceptances WHERE tenant_id = $1', [t.id]);
      assert.deepEqual(acceptances.rows.map((r) => r.accepted_by), ['Zoë']);
    });

    it('refuses multipart text and file names that are not UTF-8, and text files that break their encoding, with 422, and stores nothing', async () => {
      const t = await createTenant(app, 'enterprise');
      const api = client(app.url, t.key);
      const home = (await api('POST', '/v1/knowledge-bases', { name: 'home' })).body.id as string;
      const part = (headers: string | Buffer, data: string | Buffer) => bytes('--XYZ\r\n', headers, '\r\n\r\n', data, '\r\n');
      const metadata = (extra = '', type = '') => part(`Content-Disposition: form-data; name="metadata"${type}`, `{"knowledge_base_id":"${home}"${extra}}`);
      const file = (name: string | Buffer, data: string | Buffer) => part(bytes('Content-Disposition: form-data; name="file"; ', name, '\r\nContent-Type: text/plain'), data);
      const body = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from('--XYZ--\r\n')]);
      const send = (b: Buffer) => rawPost(`${app.url}/v1/documents/upload`, t.key, 'multipart/form-data; boundary=XYZ', b);
      const utf16 = (text: string, order: 'le' | 'be') => {
        const le = Buffer.from(text, 'utf16le');
        return order === 'le' ? le : Buffer.from(le).swap16();
      };

      const refused: [Buffer, string, RegExp][] = [
        [body(part('Content-Disposition: form-data; name="metadata"', bytes(`{"knowledge_base_id":"${home}","title":"a`, [0xff], '"}')), file('filename="a.txt"', 'text')), 'metadata', /UTF-8/],
        // A part that declares UTF-8 is decoded by busboy, which leaves U+FFFD for the bad bytes.
        [body(part('Content-Disposition: form-data; name="metadata"\r\nContent-Type: application/json; charset=utf-8', bytes(`{"knowledge_base_id":"${home}","title":"a`, [0xff], '"}')), file('filename="a.txt"', 'text')), 'metadata', /U\+FFFD/],
        [body(metadata(), file(bytes('filename="a', [0xff], '.txt"'), 'text')), 'file.filename', /UTF-8/],
        [body(metadata(), file("filename*=UTF-8''a%FF.txt", 'text')), 'file.filename', /U\+FFFD/],
        // UTF-16 by its byte-order mark, with an unpaired surrogate, or an odd byte at the end.
        [body(metadata(), file('filename="a.txt"', bytes([0xff, 0xfe], utf16('ab', 'le'), [0x00, 0xd8], utf16('c', 'le')))), 'file', /UTF-16/],
        [body(metadata(), file('filename="a.txt"', bytes([0xfe, 0xff], utf16('abc', 'be'), [0x41]))), 'file', /UTF-16/],
        // UTF-16 without a byte-order mark reads as UTF-8 holding NUL: refused, not guessed at.
        [body(metadata(), file('filename="a.txt"', utf16('Teezeit', 'le'))), 'file', /NUL/],
      ];
      for (const [b, field, message] of refused) {
        const res = await send(b);
        assert.equal(res.status, 422, `${field}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, 'validation_failed');
        assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), [field], JSON.stringify(res.body));
        assert.match(res.body.fields[0].message, message);
      }
      assert.deepEqual((await api('GET', `/v1/knowledge-bases/${home}/documents`)).body, []);

      // The same, valid: a file name in raw UTF-8 (as browsers send it) or as filename*, a part declaring UTF-8, UTF-16 either way round.
      const accepted: [Buffer, string, string][] = [
        [body(metadata(), file(bytes('filename="Grüße.txt"'), 'Tee')), 'Grüße', 'Tee'],
        [body(metadata(), file("filename*=UTF-8''K%C3%B6ln.txt", 'Dom')), 'Köln', 'Dom'],
        [body(metadata(',"title":"Zoë"', '\r\nContent-Type: application/json; charset=utf-8'), file('filename="z.txt"', 'Zoë')), 'Zoë', 'Zoë'],
        [body(metadata(), file('filename="be.txt"', bytes([0xfe, 0xff], utf16('Grüße 🍵', 'be')))), 'be', 'Grüße 🍵'],
        [body(metadata(), file('filename="path/to/le.txt"', bytes([0xff, 0xfe], utf16('Grüße 🍵', 'le')))), 'le', 'Grüße 🍵'],
      ];
      for (const [b, title, content] of accepted) {
        const res = await send(b);
        assert.equal(res.status, 202, `${title}: ${JSON.stringify(res.body)}`);
        const stored = (await api('GET', `/v1/documents/${res.body.document_id}`)).body;
        assert.deepEqual([stored.title, stored.content], [title, content]);
      }
    });

    it('refuses a sub-tenant limit above what its integer column holds with 422, and takes the largest that fits', async () => {
      const api = client(app.url, tenant.key);
      const sub = (await api('POST', '/v1/sub-tenants', { name: 'int4 probe' })).body.id as string;
      for (const field of ['max_knowledge_bases', 'max_documents', 'query_rate_limit_per_min', 'per_user_rate_limit_per_min']) {
        const res = await api('PATCH', `/v1/sub-tenants/${sub}`, { [field]: 2 ** 31 });
        assert.equal(res.status, 422, `${field}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), [`body.${field}`]);
        assert.equal((await api('PATCH', `/v1/sub-tenants/${sub}`, { [field]: 2 ** 31 - 1 })).status, 200, field);
      }
      assert.equal((await api('POST', '/v1/sub-tenants', { name: 'int4 probe 2', max_documents: 2 ** 31 })).status, 422);
    });

    it("describes the health probes' 503 in the OpenAPI document with the bodies they send, not as errors", async () => {
      const doc = (await client(app.url)('GET', '/v1/openapi.json')).body;
      const schema = (path: string) => doc.paths[path].get.responses['503'].content['application/json'].schema;
      assert.deepEqual(schema('/health/index').required, ['idx_chunks_embedding', 'idx_platform_chunks_embedding']);
      assert.deepEqual(schema('/health/ready').required, ['status']);
      assert.equal(doc.paths['/v1/query'].post.responses['503'].content['application/json'].schema.$ref, '#/components/schemas/Error');
    });

    it('never rate-limits health probes or metrics, even from an address that is being refused', async () => {
      const raw = client(app.url, undefined, { strict: true });
      const probes = ['/health/live', '/health/ready', '/health/index', '/metrics'];
      // What each answers unthrottled (the index probe is 503 where the database has no pgvector).
      const before = await Promise.all(probes.map(async (path) => (await raw('GET', path)).status));
      // Bursts until the per-address limit refuses one: on a busy machine one burst may straddle two windows.
      let refused = false;
      for (let burst = 0; burst < 10 && !refused; burst++) {
        const results = await Promise.all(Array.from({ length: 150 }, () => raw('GET', '/v1/nothing')));
        refused = results.some((r) => r.status === 429);
      }
      assert.ok(refused, 'the burst is refused');
      for (const [i, path] of probes.entries()) assert.equal((await raw('GET', path)).status, before[i], path);
    });
  });
}

describe('hardening: metrics can be kept private', () => {
  it('asks for the metrics token when METRICS_TOKEN is set', async () => {
    const [database] = testDatabases();
    const token = 'metrics-token-0123456789abcdef';
    const app = await startTestApp(await database!.get(), { jobs: false, env: { METRICS_TOKEN: token } });
    try {
      assert.equal((await client(app.url)('GET', '/metrics')).status, 401);
      assert.equal((await client(app.url, 'wrong-token-0123456789abcdef00')('GET', '/metrics')).status, 401);
      const res = await client(app.url, token)('GET', '/metrics');
      assert.equal(res.status, 200);
      assert.match(res.body, /lore_http_requests_total/);
    } finally {
      await app.close();
    }
  });
});

describe('hardening: logs carry no secrets', () => {
  it('keeps statement parameters, key hashes and quoted values of a failed statement out of the log', async () => {
    const [database] = testDatabases();
    const db = await database!.get();
    const probe = `redaction-probe-${Date.now()}`;
    // A real failure inside PostgreSQL while a key is stored: a trigger refuses this probe's name,
    // quoting it as some PostgreSQL messages quote values.
    await db.exec(`
      CREATE OR REPLACE FUNCTION lore_test_refuse_probe() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name LIKE 'redaction-probe-%' THEN RAISE EXCEPTION 'refused value: "%"', NEW.name; END IF;
        RETURN NEW;
      END $$;
      DROP TRIGGER IF EXISTS lore_test_refuse_probe ON api_keys;
      CREATE TRIGGER lore_test_refuse_probe BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION lore_test_refuse_probe();
    `);
    const captured = capturedLog();
    const app = await startTestApp(db, { jobs: false, log: captured.log });
    try {
      const tenant = await createTenant(app);
      const api = client(app.url, tenant.key);
      const res = await api('POST', '/v1/auth/keys', { name: probe, role: 'read' });
      assert.equal(res.status, 500);
      assert.equal(res.body.error, 'internal_error');
      // A body that is not JSON, with a secret in it, and a secret in a header.
      const secretBody = `{"name": "hunter2-body-secret"`;
      assert.equal((await rawPost(`${app.url}/v1/knowledge-bases`, tenant.key, 'application/json', secretBody)).status, 400);

      const log = captured.text();
      assert.match(log, /unhandled error/, 'the failure is logged');
      assert.match(log, /INSERT INTO api_keys/, 'with its statement');
      assert.ok(!log.includes(probe), 'no parameter value, quoted or not');
      assert.ok(!/[0-9a-f]{64}/.test(log), 'no key hash');
      assert.ok(!log.includes(tenant.key), 'no API key');
      assert.ok(!log.includes(tenant.key.slice(-12)), 'no part of an API key');
      assert.ok(!log.includes('hunter2-body-secret'), 'no request body');
    } finally {
      await app.close();
      await db.exec('DROP TRIGGER IF EXISTS lore_test_refuse_probe ON api_keys; DROP FUNCTION IF EXISTS lore_test_refuse_probe();');
    }
  });
});
