import assert from 'node:assert/strict';
import http from 'node:http';
import { TEST_ADMIN_TOKEN, type TestApp, client, createKey, createTenant, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { corruptPdf, imageOnlyPdf, multilingualPdf } from '../support/pdf-fixtures.js';

function form(file: { data: Uint8Array | string; type: string; name?: string } | undefined, metadata: unknown): FormData {
  const f = new FormData();
  if (metadata !== undefined) f.append('metadata', typeof metadata === 'string' ? metadata : JSON.stringify(metadata));
  if (file) f.append('file', new Blob([file.data], { type: file.type }), file.name ?? 'file.bin');
  return f;
}

/** A multipart body whose file part has no Content-Type header at all (as Python's requests sends a file). */
function untypedFileBody(data: Uint8Array, fileName: string, metadata: unknown): { body: Buffer; type: string } {
  const boundary = 'UntypedFileBoundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(metadata)}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/**
 * POSTs an upload with node:http and returns the server's answer as soon as it comes, even when
 * the connection breaks before the whole body was sent: an oversized request is answered at once,
 * and on a busy machine fetch reported the reset that can follow instead of that answer.
 */
async function answerWhileSending(url: string, key: string, body: FormData): Promise<{ status: number; body: { error?: string } }> {
  const request = new Request('http://localhost/', { method: 'POST', body });
  const bytes = Buffer.from(await request.arrayBuffer());
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers = { authorization: `Bearer ${key}`, 'content-type': request.headers.get('content-type')!, 'content-length': bytes.length };
    const req = http.request(`${url}/v1/documents/upload`, { method: 'POST', headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(bytes);
  });
}

for (const database of testDatabases()) {
  describe(`document upload and download [${database.name}]`, () => {
    let app: TestApp;
    let tenant: { id: string; key: string };
    let kb: string;
    before(async () => {
      app = await startTestApp(await database.get());
      tenant = await createTenant(app);
      kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'uploads' })).body.id;
    });
    after(() => app.close());

    const upload = (body: FormData, key = tenant.key) => client(app.url, key)('POST', '/v1/documents/upload', body);

    it('indexes a text file and serves the original back as application/octet-stream', async () => {
      const text = 'Plain text upload.\n\nIt has two paragraphs, one about tea and one about coffee.';
      const res = await upload(form({ data: text, type: 'text/plain', name: 'notes.txt' }, { knowledge_base_id: kb, tags: { kind: 'note' } }));
      assert.equal(res.status, 202);
      assert.equal((await waitForJob(app, tenant.key, res.body.job_id)).status, 'completed');
      const api = client(app.url, tenant.key);
      const doc = (await api('GET', `/v1/documents/${res.body.document_id}`)).body;
      assert.equal(doc.title, 'notes');
      assert.equal(doc.content, text);
      assert.equal(doc.source, 'upload');
      assert.deepEqual(doc.file, { content_type: 'text/plain', file_name: 'notes.txt', size_bytes: Buffer.byteLength(text) });
      const file = await api('GET', `/v1/documents/${res.body.document_id}/download`);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'application/octet-stream');
      assert.match(file.headers.get('content-disposition') ?? '', /filename="notes.txt"/);
      assert.equal(Buffer.from(file.body).toString('utf8'), text);
      const hits = await api('POST', '/v1/query', { query: 'coffee tea paragraphs' });
      assert.equal(hits.body.results[0].document_id, res.body.document_id);
    });

    it('extracts a PDF, indexes its text, and serves the PDF back as application/pdf', async () => {
      const pdf = await multilingualPdf();
      const res = await upload(form({ data: pdf, type: 'application/pdf', name: 'guide.pdf' }, { knowledge_base_id: kb, title: 'The Guide' }));
      assert.equal(res.status, 202);
      assert.equal((await waitForJob(app, tenant.key, res.body.job_id)).status, 'completed');
      const api = client(app.url, tenant.key);
      const doc = (await api('GET', `/v1/documents/${res.body.document_id}`)).body;
      assert.equal(doc.title, 'The Guide');
      assert.match(doc.content, /Les documents sont découpés en fragments/);
      const file = await api('GET', `/v1/documents/${res.body.document_id}/download`);
      assert.equal(file.headers.get('content-type'), 'application/pdf');
      assert.deepEqual(new Uint8Array(file.body), pdf);
      const hits = await api('POST', '/v1/query', { query: 'fragments indexation', top_k: 1 });
      assert.equal(hits.body.results[0].document_id, res.body.document_id);
    });

    it('indexes Markdown and HTML as their text, without markup, and keeps the original file', async () => {
      const api = client(app.url, tenant.key);
      const markdown = [
        '# Travel policy',
        '',
        'Book trains for trips under **600 km**; see the [booking portal](https://travel.example.com/book "Portal").',
        '',
        '- Economy class',
        '- Receipts within _30 days_',
        '',
        '```sh',
        'expense submit --trip 42',
        '```',
      ].join('\n');
      const html =
        '<!DOCTYPE html><html><head><title>Menu</title><style>p{color:red}</style><script>var hidden = "<p>no</p>";</script></head>' +
        '<body><h1>Canteen&nbsp;menu</h1><p>Soup &amp; bread<br>on Mondays &#8212; free</p><!-- not shown --><ul><li>Tea</li><li>Coffee</li></ul></body></html>';
      const cases = [
        { data: markdown, type: 'text/markdown', name: 'travel.md', text: 'Travel policy\n\nBook trains for trips under 600 km; see the booking portal.\n\nEconomy class\nReceipts within 30 days\n\nexpense submit --trip 42' },
        { data: html, type: 'text/html', name: 'menu.html', text: 'Canteen menu\n\nSoup & bread\non Mondays — free\n\nTea\nCoffee' },
      ];
      for (const c of cases) {
        const res = await upload(form({ data: c.data, type: c.type, name: c.name }, { knowledge_base_id: kb }));
        assert.equal(res.status, 202, JSON.stringify(res.body));
        assert.equal((await waitForJob(app, tenant.key, res.body.job_id)).status, 'completed');
        const doc = (await api('GET', `/v1/documents/${res.body.document_id}`)).body;
        assert.equal(doc.content, c.text);
        assert.deepEqual(doc.file, { content_type: c.type, file_name: c.name, size_bytes: Buffer.byteLength(c.data) });
        assert.equal(Buffer.from((await api('GET', `/v1/documents/${res.body.document_id}/download`)).body).toString('utf8'), c.data);
      }
      const hits = await api('POST', '/v1/query', { query: 'canteen soup bread', top_k: 1 });
      assert.equal(hits.body.results[0].document_title, 'menu');
    });

    it('reads a file sent as application/octet-stream, or without a type, by its name, else by its content', async () => {
      const api = client(app.url, tenant.key);
      const pdf = await multilingualPdf();
      const cases: Array<{ data: Uint8Array | string; name: string; untyped?: boolean; type: string; content: RegExp }> = [
        { data: pdf, name: 'guide.pdf', type: 'application/pdf', content: /Les documents sont découpés/ },
        { data: pdf, name: 'guide.bin', type: 'application/pdf', content: /Les documents sont découpés/ },
        { data: pdf, name: 'guide', untyped: true, type: 'application/pdf', content: /Les documents sont découpés/ },
        { data: '## Notes\n\nThe *quiet* room is on floor 3.', name: 'notes.MD', type: 'text/markdown', content: /^Notes\n\nThe quiet room is on floor 3\.$/ },
        { data: '## Notes\n\nThe quiet room is on floor 3.', name: 'notes.md', untyped: true, type: 'text/markdown', content: /^Notes\n\nThe quiet room/ },
        { data: '\n  <!doctype html><p>Parking &amp; bikes</p>', name: 'page', type: 'text/html', content: /^Parking & bikes$/ },
        { data: 'Plain words, café, naïve.', name: 'README', type: 'text/plain', content: /^Plain words, café, naïve\.$/ },
        { data: 'Untyped plain words.', name: 'notes.log', untyped: true, type: 'text/plain', content: /^Untyped plain words\.$/ },
      ];
      for (const c of cases) {
        const metadata = { knowledge_base_id: kb };
        let res: { status: number; body: any };
        if (c.untyped) {
          const { body, type } = untypedFileBody(typeof c.data === 'string' ? Buffer.from(c.data) : c.data, c.name, metadata);
          const answer = await fetch(`${app.url}/v1/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': type }, body });
          res = { status: answer.status, body: await answer.json() };
        } else {
          res = await upload(form({ data: c.data, type: 'application/octet-stream', name: c.name }, metadata));
        }
        assert.equal(res.status, 202, `${c.name}: ${JSON.stringify(res.body)}`);
        const doc = (await api('GET', `/v1/documents/${res.body.document_id}`)).body;
        assert.match(doc.content, c.content, c.name);
        assert.equal(doc.file.content_type, c.type, c.name);
      }
      // Binary content with no telling name stays refused, and a declared type is taken at its word.
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
      for (const body of [form({ data: png, type: 'application/octet-stream', name: 'photo' }, { knowledge_base_id: kb }), form({ data: 'words', type: 'text/csv', name: 'a.txt' }, { knowledge_base_id: kb })]) {
        const refused = await upload(body);
        assert.equal(refused.status, 422);
        assert.equal(refused.body.error, 'unsupported_file_type');
        assert.deepEqual(refused.body.fields.map((f: { field: string }) => f.field), ['file.content_type']);
        assert.match(refused.body.message, /text\/plain, text\/markdown, text\/html or application\/pdf/);
      }
    });

    it('answers 404 for a download when no file is stored', async () => {
      const api = client(app.url, tenant.key);
      const res = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'json', content: 'no file here' });
      const dl = await api('GET', `/v1/documents/${res.body.document_id}/download`);
      assert.equal(dl.status, 404);
      assert.equal(dl.body.error, 'not_found');
    });

    it('answers 400 for a missing file or missing or invalid metadata', async () => {
      const file = { data: 'x', type: 'text/plain' };
      const cases: Array<[FormData, string]> = [
        [form(undefined, { knowledge_base_id: kb }), 'missing_file'],
        [form(file, undefined), 'invalid_metadata'],
        [form(file, '{not json'), 'invalid_metadata'],
        [form(file, '[1,2]'), 'invalid_metadata'],
        [form(file, { title: 'no kb' }), 'invalid_metadata'],
        [form(file, { knowledge_base_id: kb, tags: { a: 1 } }), 'invalid_metadata'],
        [form(file, { knowledge_base_id: 'nope' }), 'invalid_knowledge_base_id'],
      ];
      for (const [body, code] of cases) {
        const res = await upload(body);
        assert.equal(res.status, 400, code);
        assert.equal(res.body.error, code);
      }
      const unknown = await upload(form(file, { knowledge_base_id: '00000000-0000-4000-8000-000000000000' }));
      assert.equal(unknown.status, 404);
      const notMultipart = await client(app.url, tenant.key)('POST', '/v1/documents/upload', { knowledge_base_id: kb });
      assert.equal(notMultipart.status, 415);
    });

    it('answers 422 for unsupported types, corrupt PDFs and PDFs without text', async () => {
      const png = await upload(form({ data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), type: 'image/png', name: 'a.png' }, { knowledge_base_id: kb }));
      assert.equal(png.status, 422);
      assert.equal(png.body.error, 'unsupported_file_type');
      const corrupt = await upload(form({ data: await corruptPdf(), type: 'application/pdf' }, { knowledge_base_id: kb }));
      assert.equal(corrupt.status, 422);
      assert.equal(corrupt.body.error, 'pdf_extraction_failed');
      const fake = await upload(form({ data: 'hello, not a pdf', type: 'application/pdf' }, { knowledge_base_id: kb }));
      assert.equal(fake.body.error, 'pdf_extraction_failed');
      const scanned = await upload(form({ data: await imageOnlyPdf(), type: 'application/pdf' }, { knowledge_base_id: kb }));
      assert.equal(scanned.body.error, 'pdf_extraction_failed');
    });

    it('answers 422 parse_timeout when PDF parsing exceeds its time limit', async () => {
      // A cold extraction worker alone takes longer than 100 ms to start, and its start counts.
      const slow = await startTestApp(app.db, { env: { PDF_PARSE_TIMEOUT_MS: '100' }, jobs: false });
      try {
        const res = await client(slow.url, tenant.key)('POST', '/v1/documents/upload', form({ data: await multilingualPdf(), type: 'application/pdf' }, { knowledge_base_id: kb }));
        assert.equal(res.status, 422);
        assert.equal(res.body.error, 'parse_timeout');
      } finally {
        await slow.close();
      }
    });

    it('answers 422 content_too_large for text over 10 MB, and 413 for a request over 55 MB', async () => {
      const ent = await createTenant(app, 'enterprise');
      const kbE = (await client(app.url, ent.key)('POST', '/v1/knowledge-bases', { name: 'big' })).body.id;
      const eleven = 'a'.repeat(11 * 1024 * 1024);
      const big = await upload(form({ data: eleven, type: 'text/plain' }, { knowledge_base_id: kbE }), ent.key);
      assert.equal(big.status, 422);
      assert.equal(big.body.error, 'content_too_large');
      const huge = await answerWhileSending(app.url, ent.key, form({ data: new Uint8Array(56 * 1024 * 1024), type: 'text/plain' }, { knowledge_base_id: kbE }));
      assert.equal(huge.status, 413);
      assert.equal(huge.body.error, 'payload_too_large');
    });

    it('applies the plan limits to uploads (413 document_too_large, 402 document_limit_reached)', async () => {
      const free = await createTenant(app, 'free');
      const kbF = (await client(app.url, free.key)('POST', '/v1/knowledge-bases', { name: 'f' })).body.id;
      const six = 'b'.repeat(6 * 1024 * 1024);
      const tooBig = await upload(form({ data: six, type: 'text/plain' }, { knowledge_base_id: kbF }), free.key);
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.body.error, 'document_too_large');
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${free.id}`, { limit_overrides: { max_documents: 1 } });
      assert.equal((await upload(form({ data: 'one', type: 'text/plain' }, { knowledge_base_id: kbF }), free.key)).status, 202);
      const second = await upload(form({ data: 'two', type: 'text/plain' }, { knowledge_base_id: kbF }), free.key);
      assert.equal(second.status, 402);
      assert.equal(second.body.error, 'document_limit_reached');
    });

    it("requires write, and isolates tenants' uploads", async () => {
      const read = await createKey(app, tenant.key, 'read');
      assert.equal((await upload(form({ data: 'x', type: 'text/plain' }, { knowledge_base_id: kb }), read)).status, 403);
      const other = await createTenant(app);
      const res = await upload(form({ data: 'x', type: 'text/plain' }, { knowledge_base_id: kb }), other.key);
      assert.equal(res.status, 404);
    });
  });
}
