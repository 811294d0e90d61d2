import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { BURST_LIMITS } from '../../core/plans.js';
import { type TestApp, client, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import {
  BAD_TEXT,
  BUDGET_SHARES,
  BurstPacer,
  type Hints,
  type Json,
  type JsonSchema,
  OperationStats,
  type Part,
  type RawRequest,
  SchemaArbitraries,
  capturedErrorLog,
  contractViolations,
  describeRequest,
  describeResponse,
  fieldPart,
  filePart,
  fuzzSettings,
  jsonText,
  multipartBytes,
  mutationArb,
  nextClientAddress,
  printFigures,
  seedFor,
  sendRaw,
  wordsArb,
} from '../support/fuzz.js';
import { FuzzTenant, type KeyRole } from '../support/fuzz-tenant.js';
import { multilingualPdf } from '../support/pdf-fixtures.js';

/** An operation of the OpenAPI document, as the fuzzer needs it. */
interface Operation {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  body: { type: 'json' | 'multipart'; schema: JsonSchema } | undefined;
  /** JSON body schemas of the documented responses, by status. */
  responses: Record<string, JsonSchema | undefined>;
}

/** One generated request before it is sent: credentials and client address are added at send time. */
interface Plan {
  auth: { kind: 'key'; role: KeyRole } | { kind: 'none' } | { kind: 'revoked' } | { kind: 'raw'; value: string };
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  chunked: boolean;
  notes: string[];
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) {
      const content = op.requestBody?.content ?? {};
      const body = content['application/json']
        ? { type: 'json' as const, schema: content['application/json'].schema as JsonSchema }
        : content['multipart/form-data']
          ? { type: 'multipart' as const, schema: content['multipart/form-data'].schema as JsonSchema }
          : undefined;
      const responses: Operation['responses'] = {};
      for (const [status, response] of Object.entries(op.responses ?? {})) responses[status] = (response as any).content?.['application/json']?.schema;
      ops.push({ id: op.operationId as string, method: method.toUpperCase(), path, params: op.parameters ?? [], body, responses });
    }
  }
  return ops;
}

const LANGUAGES = ['en', 'nl', 'fr', 'de', 'es', 'it', 'bg', 'ro'];

/** Every operation gets at least this long, however little budget is left. */
const MIN_OPERATION_MS = 250;

/** The upload's metadata part: JSON the OpenAPI document describes only in words. */
const UPLOAD_METADATA: JsonSchema = {
  type: 'object',
  properties: {
    knowledge_base_id: { type: 'string', format: 'uuid' },
    title: { type: 'string', minLength: 1, maxLength: 500 },
    tags: { type: 'object', additionalProperties: { type: 'string', maxLength: 512 } },
    anonymize: { type: 'boolean' },
  },
  required: ['knowledge_base_id'],
  additionalProperties: false,
};

/** What Lore's fields mean beyond their schema, so valid-looking requests reach the handlers. */
function loreHints(tenant: FuzzTenant): Hints {
  const text = fc.oneof({ arbitrary: wordsArb(1, 30), weight: 4 }, { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), weight: 1 });
  return (path, schema) => {
    const field = path[path.length - 1];
    const parent = path[path.length - 2];
    if (path[0] !== 'body' && path[0] !== 'metadata') return undefined;
    if (field === 'knowledge_base_id' || (field === '[]' && parent === 'knowledge_base_ids')) {
      return fc.oneof({ arbitrary: fc.constantFrom(...tenant.pools.knowledgeBases), weight: 4 }, { arbitrary: fc.uuid(), weight: 1 });
    }
    if ((field === 'source' || field === 'target') && !schema.enum) return fc.constantFrom('auto', ...LANGUAGES);
    if (field === 'source_language') return fc.constantFrom('auto', ...LANGUAGES);
    if (field === 'plan') return fc.constantFrom('free', 'payg', 'standard', 'enterprise');
    if (field === 'version') return fc.oneof({ arbitrary: fc.constant(tenant.dpaVersion), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 1 });
    if (field === '[]' && parent === 'corpora') return fc.constantFrom(...tenant.pools.corpora);
    if (field === '{key}' && parent === 'filters') return fc.constantFrom('tags.topic', 'created_after', 'created_before', 'document_title', 'tags.none');
    if (field === '{}' && parent === 'filters') return fc.oneof(wordsArb(1, 2), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
    if (field === '{key}' && parent === 'metadata_filter') return fc.constantFrom('year', 'lang', 'none');
    if (field === '{}' && parent === 'metadata_filter') return fc.constantFrom('2019', '2021', 'en', 'fr');
    if (field === '{key}' && parent === 'tags') return fc.constantFrom('topic', 'lang', 'team');
    if (field === 'texts') return fc.array(text, { minLength: 1, maxLength: 4 });
    if (field === 'text' || field === 'query' || field === 'content' || (field === '[]' && parent === 'texts')) return text;
    return undefined;
  };
}

// ---------------------------------------------------------------------------------------------
// Arbitraries of each part of a request

const HEADER_CHAR = fc.integer({ min: 0x20, max: 0xff }).filter((c) => c < 0x7f || c >= 0xa0).map((c) => String.fromCharCode(c));
const headerValue = (maxLength: number) => fc.string({ unit: HEADER_CHAR, maxLength });

const authArb: fc.Arbitrary<Plan['auth']> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'key' as const, role: 'admin' as const }), weight: 16 },
  { arbitrary: fc.constantFrom('write', 'read', 'subWrite', 'subRead').map((role) => ({ kind: 'key' as const, role: role })), weight: 3 },
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'revoked' as const }), weight: 1 },
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom('Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc', `Bearer lore_${'A'.repeat(43)}`, `Bearer ${'x'.repeat(5000)}`, 'Bearer \u00ff\u00fe'),
        headerValue(80).map((v) => `Bearer ${v}`),
      )
      .map((value) => ({ kind: 'raw' as const, value })),
    weight: 2,
  },
);

/** Path segments that are not ids: percent-escapes of NUL and of a lone surrogate, broken escapes, dots, very long ones. */
const ODD_SEGMENTS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%E0%A4%A',
  '%',
  '%zz',
  '%25',
  '..',
  '.',
  'a%2Fb',
  '%20',
  'null',
  '-1',
  '1e308',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '%7B00000000-0000-4000-8000-000000000000%7D',
  '00000000000040008000000000000000',
  'a'.repeat(5000),
  'a'.repeat(20_000),
];

function segment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
}

function pathParamArb(pool: string[]): fc.Arbitrary<{ raw: string; note?: string }> {
  const options: fc.WeightedArbitrary<{ raw: string; note?: string }>[] = [
    { arbitrary: fc.uuid().map((u) => ({ raw: u, note: 'a random uuid' })), weight: 2 },
    { arbitrary: fc.constantFrom(...ODD_SEGMENTS).map((raw) => ({ raw, note: `odd segment ${raw.slice(0, 40)}` })), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => ({ raw: segment(s), note: 'a random string' })), weight: 1 },
  ];
  if (pool.length) options.push({ arbitrary: fc.constantFrom(...pool).map((raw) => ({ raw: segment(raw) })), weight: 7 });
  return fc.oneof(...options);
}

/** Which of the tenant's resources a path parameter names, by the path segment before it. */
function poolFor(tenant: FuzzTenant, path: string, name: string): string[] {
  const before = path.split('/')[path.split('/').indexOf(`{${name}}`) - 1];
  const p = tenant.pools;
  const pools: Record<string, string[]> = {
    'knowledge-bases': p.knowledgeBases,
    documents: p.documents,
    jobs: p.jobs,
    'sub-tenants': p.subTenants,
    'api-keys': p.subTenantKeys,
    users: p.users,
    keys: p.apiKeys,
    exports: p.exports.map((e) => e.id),
    corpora: p.corpora,
  };
  return pools[before ?? ''] ?? [...p.knowledgeBases, ...p.documents, ...p.jobs, ...p.subTenants];
}

const EXTRA_QUERIES = ['a=1', '__proto__=x', 'q=%00', 'x=%ED%A0%80', '%zz=1', 'a[b]=1', 'a=1&a=2', `long=${'a'.repeat(10_000)}`, 'a=1&'.repeat(2000), 'expires=1&signature=x', '&&=&='];

function queryArb(op: Operation, tenant: FuzzTenant): fc.Arbitrary<{ query: string; notes: string[] }> {
  const declared = op.params.filter((p) => p.in === 'query');
  const exportLink = tenant.pools.exports[0];
  const validValue = (name: string): fc.Arbitrary<string> => {
    if (name === 'expires' && exportLink) return fc.oneof(fc.constant(exportLink.expires), fc.constantFrom('0', '-1', '1e308', '9999999999999', 'abc', ''));
    if (name === 'signature' && exportLink) return fc.oneof(fc.constant(exportLink.signature), fc.string({ maxLength: 64 }));
    return fc.string({ maxLength: 20 });
  };
  const valid = fc.tuple(...declared.map((p) => validValue(p.name).map((v) => `${p.name}=${segment(v)}`))).map((pairs) => ({ query: pairs.join('&'), notes: [] as string[] }));
  const mutated = fc.tuple(valid, fc.nat(), fc.constantFrom(...EXTRA_QUERIES), fc.constantFrom('drop', 'extra', 'replace', 'duplicate')).map(([v, at, extra, how]) => {
    const pairs = v.query ? v.query.split('&') : [];
    const i = at % Math.max(1, pairs.length);
    if (how === 'drop' && pairs.length) pairs.splice(i, 1);
    else if (how === 'replace' && pairs.length) pairs[i] = `${pairs[i]!.split('=')[0]}=${extra.split('=').slice(1).join('=') || segment('\u0000')}`;
    else if (how === 'duplicate' && pairs.length) pairs.push(pairs[i]!);
    else pairs.push(extra);
    return { query: pairs.join('&'), notes: [`query: ${how} (${extra.slice(0, 40)})`] };
  });
  return fc.oneof({ arbitrary: valid, weight: declared.length ? 6 : 12 }, { arbitrary: mutated, weight: 2 });
}

const EXTRA_HEADERS: [string, fc.Arbitrary<string>][] = [
  ['x-request-id', fc.oneof(headerValue(40), fc.constant('a'.repeat(200)))],
  ['x-user-id', fc.oneof(headerValue(300), fc.constantFrom('', 'a'.repeat(256), 'a'.repeat(257)))],
  ['x-confirm-delete', fc.constantFrom('DELETE_MY_ACCOUNT', 'delete_my_account', '')],
  ['accept', fc.constantFrom('text/html', 'application/xml', '*/*', 'application/json;q=0', 'garbage')],
  ['accept-encoding', fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0')],
  ['accept-language', fc.constantFrom('fr', 'xx', '*')],
  ['range', fc.constantFrom('bytes=0-1', 'bytes=5-1', 'bytes=-1', 'lines=1')],
  ['if-none-match', fc.constant('*')],
  ['cookie', headerValue(100)],
  ['x-accepted-by', fc.oneof(headerValue(201), fc.constant('a'.repeat(8000)))],
];

function headersArb(op: Operation): fc.Arbitrary<{ headers: Record<string, string>; notes: string[] }> {
  const declared = op.params.filter((p) => p.in === 'header');
  const oneHeader = (p: Operation['params'][number]): fc.Arbitrary<[string, string | undefined, string | undefined]> => {
    const s = p.schema;
    const max = s.maxLength ?? 100;
    // Header values are Latin-1 on the wire: words outside it are left to the bodies.
    const words = wordsArb(1, 3).filter((w) => /^[\x20-\x7e\xa0-\xff]*$/.test(w));
    const valid = s.enum ? fc.constantFrom(...(s.enum as string[])) : fc.oneof(words.map((w) => w.slice(0, max)), headerValue(Math.min(max, 60)));
    return fc.oneof(
      { arbitrary: valid.map((v) => [p.name, v, undefined] as [string, string, undefined]), weight: 6 },
      ...(p.required ? [] : [{ arbitrary: fc.constant([p.name, undefined, undefined] as [string, undefined, undefined]), weight: 3 }]),
      {
        arbitrary: fc.constantFrom(0, max - 1, max, max + 1, 8000, 20_000).map((n) => [p.name, 'a'.repeat(n), `header ${p.name}: ${n} characters`] as [string, string, string]),
        weight: 2,
      },
      { arbitrary: headerValue(80).map((v) => [p.name, v, `header ${p.name}: random`] as [string, string, string]), weight: 1 },
    );
  };
  const extra = fc.subarray(EXTRA_HEADERS, { maxLength: 2 }).chain((chosen) => fc.tuple(...chosen.map(([name, arb]) => arb.map((v) => [name, v] as [string, string]))));
  return fc
    .tuple(fc.tuple(...declared.map(oneHeader)), fc.oneof({ arbitrary: fc.constant([] as [string, string][]), weight: 6 }, { arbitrary: extra, weight: 1 }))
    .map(([own, extras]) => {
      const headers: Record<string, string> = {};
      const notes: string[] = [];
      for (const [name, value, note] of own) {
        if (value !== undefined) headers[name] = value;
        if (note) notes.push(note);
      }
      for (const [name, value] of extras) {
        headers[name] = value;
        notes.push(`extra header ${name}`);
      }
      return { headers, notes };
    });
}

/** Ways to send a JSON body other than plainly: other types and charsets, encodings, transfer coding, a BOM. */
const ENVELOPES: { label: string; contentType?: string | undefined; encoding?: string; compress?: (b: Buffer) => Buffer; chunked?: boolean; bom?: boolean; pad?: number }[] = [
  { label: 'Content-Type: text/plain', contentType: 'text/plain' },
  { label: 'no Content-Type', contentType: undefined },
  { label: 'form-urlencoded', contentType: 'application/x-www-form-urlencoded' },
  { label: 'multipart type', contentType: 'multipart/form-data; boundary=x' },
  { label: 'charset utf-16', contentType: 'application/json; charset=utf-16' },
  { label: 'charset latin1', contentType: 'application/json; charset=latin1' },
  { label: 'charset garbage', contentType: 'application/json; charset=no-such-charset' },
  { label: '+json type', contentType: 'application/vnd.lore+json' },
  { label: 'upper-case type', contentType: 'APPLICATION/JSON' },
  { label: 'broken parameters', contentType: 'application/json;;;=' },
  { label: 'type */*', contentType: '*/*' },
  { label: 'type application/', contentType: 'application/' },
  { label: 'gzip', contentType: 'application/json', encoding: 'gzip', compress: (b) => gzipSync(b) },
  { label: 'deflate', contentType: 'application/json', encoding: 'deflate', compress: (b) => deflateSync(b) },
  { label: 'gzip header, plain body', contentType: 'application/json', encoding: 'gzip' },
  { label: 'br header, plain body', contentType: 'application/json', encoding: 'br' },
  { label: 'unknown encoding', contentType: 'application/json', encoding: 'x-unknown' },
  { label: 'chunked', contentType: 'application/json', chunked: true },
  { label: 'BOM', contentType: 'application/json', bom: true },
  { label: '1.1 MB of whitespace', contentType: 'application/json', pad: 1_100_000 },
  { label: '4.1 MB of whitespace', contentType: 'application/json', pad: 4_200_000 },
];

const GARBAGE_JSON = ['', '{', '}', '{"a":', '[1,]', '{"a" 1}', 'nul', 'null', 'true', '0', '"str"', '[]', "{'a':1}", '{"a":1}{"b":2}', '\u0000', '{"a":NaN}', '{"a":Infinity}', '{"a":01}', '{"a":.5}', '{"a":1e}', '/* c */ {}', '{"a":"\\x00"}', '{"a":"\\ud800"}', '{"__proto__":{"role":"admin"}}', '[' + '{"a":'.repeat(3) + '1}}}]'];

interface BodyOut {
  body: Buffer | undefined;
  headers: Record<string, string>;
  chunked: boolean;
  notes: string[];
}

function jsonBodyArb(op: Operation, schemas: SchemaArbitraries): fc.Arbitrary<BodyOut> {
  const schema = op.body?.schema;
  const valid = schemas.valid(schema, ['body']).map((value) => ({ value, notes: [] as string[] }));
  const mutated = fc.tuple(schemas.valid(schema, ['body']), fc.array(mutationArb, { minLength: 1, maxLength: 3 })).map(([value, mutations]) => {
    const notes: string[] = [];
    let v: Json = value;
    for (const m of mutations) {
      const out = schemas.mutate(v, schema, m, 'body');
      v = out.value;
      notes.push(out.note);
    }
    return { value: v, notes };
  });
  const value = schema ? fc.oneof({ arbitrary: valid, weight: 2 }, { arbitrary: mutated, weight: 3 }) : fc.constant({ value: null as Json, notes: [] as string[] });
  const envelope = fc.oneof({ arbitrary: fc.constant(undefined), weight: 10 }, { arbitrary: fc.constantFrom(...ENVELOPES), weight: 2 });
  const garbage = fc.oneof(
    fc.constantFrom(...GARBAGE_JSON).map((text) => Buffer.from(text, 'utf8')),
    fc.string({ unit: 'binary', maxLength: 80 }).map((text) => Buffer.from(text, 'utf8')),
    fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
  );
  const structured = fc.tuple(value, envelope).map(([{ value: v, notes }, env]): BodyOut => {
    let body: Buffer = Buffer.from(jsonText(v), 'utf8');
    if (env?.bom) body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    if (env?.pad) body = Buffer.concat([body, Buffer.alloc(env.pad, 0x20)]);
    if (env?.compress) body = env.compress(body);
    const headers: Record<string, string> = {};
    const contentType = env ? env.contentType : 'application/json';
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (env?.encoding) headers['content-encoding'] = env.encoding;
    return { body, headers, chunked: env?.chunked ?? false, notes: env ? [...notes, `sent as ${env.label}`] : notes };
  });
  const broken = garbage.map((body): BodyOut => ({ body, headers: { 'content-type': 'application/json' }, chunked: false, notes: ['a body that is not valid JSON'] }));
  if (!schema) {
    return fc.oneof({ arbitrary: fc.constant<BodyOut>({ body: undefined, headers: {}, chunked: false, notes: [] }), weight: 10 }, { arbitrary: structured, weight: 1 }, { arbitrary: broken, weight: 1 });
  }
  const none = fc.constant<BodyOut>({ body: undefined, headers: { 'content-type': 'application/json' }, chunked: false, notes: ['no body'] });
  return fc.oneof({ arbitrary: structured, weight: 12 }, { arbitrary: broken, weight: 2 }, { arbitrary: none, weight: 1 });
}

const FILE_NAMES = ['a.txt', 'doc.pdf', '', 'ÿ.txt', 'a\u0000.txt', '../../etc/passwd', 'x'.repeat(300), '😀.txt', 'con', 'a"b.txt'];
const FILE_TYPES = ['text/plain', 'application/pdf', 'text/plain; charset=utf-8', 'application/octet-stream', 'image/png', 'TEXT/PLAIN', 'text/plain; charset=utf-16le', ''];

/** Multipart bodies from the document's part list: a file part for each binary property, a field for the others. */
function multipartBodyArb(op: Operation, schemas: SchemaArbitraries, pdf: Buffer): fc.Arbitrary<BodyOut> {
  const props = Object.entries(op.body?.schema.properties ?? {});
  const metadataValue = fc.oneof(
    { arbitrary: schemas.valid(UPLOAD_METADATA, ['metadata']).map((v) => ({ value: v, notes: [] as string[] })), weight: 3 },
    {
      arbitrary: fc.tuple(schemas.valid(UPLOAD_METADATA, ['metadata']), mutationArb).map(([v, m]) => {
        const out = schemas.mutate(v, UPLOAD_METADATA, m, 'metadata');
        return { value: out.value, notes: [out.note] };
      }),
      weight: 2,
    },
  );
  const fileData = fc.oneof(
    { arbitrary: wordsArb(1, 200).map((w) => ({ data: Buffer.from(w), note: undefined as string | undefined })), weight: 4 },
    { arbitrary: fc.constant({ data: pdf, note: 'a PDF' }), weight: 2 },
    { arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ data: Buffer.from(b), note: 'random bytes' })), weight: 1 },
    { arbitrary: fc.constantFrom(...BAD_TEXT).map((b) => ({ data: Buffer.from(`text ${b.text} text`, 'utf8'), note: `a file holding ${b.label}` })), weight: 1 },
    { arbitrary: fc.constant({ data: pdf.subarray(0, pdf.length >> 1), note: 'half a PDF' }), weight: 1 },
    { arbitrary: fc.constant({ data: Buffer.alloc(0), note: 'an empty file' }), weight: 1 },
  );
  const fileMeta = fc.tuple(
    fc.oneof({ arbitrary: fc.constant('a.txt'), weight: 4 }, { arbitrary: fc.constantFrom(...FILE_NAMES), weight: 1 }),
    fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom(...FILE_TYPES), weight: 2 }),
  );
  const parts = fc.tuple(metadataValue, fileData, fileMeta).map(([meta, file, [fileName, type]]) => {
    const list: { part: Part; name: string }[] = [];
    const notes = [...meta.notes, ...(file.note ? [file.note] : [])];
    const isPdf = file.data === pdf || file.note === 'half a PDF';
    if (fileName !== 'a.txt') notes.push(`file name ${JSON.stringify(fileName)}`);
    if (type !== undefined) notes.push(`file type ${JSON.stringify(type)}`);
    for (const [name, schema] of props) {
      if (schema.format === 'binary') {
        const defaultName = isPdf && fileName === 'a.txt' ? 'doc.pdf' : fileName;
        list.push({ name, part: filePart(name, defaultName, type ?? (isPdf ? 'application/pdf' : 'text/plain'), file.data) });
      } else {
        list.push({ name, part: fieldPart(name, jsonText(meta.value)) });
      }
    }
    return { list, notes };
  });
  const partMutations = fc.constantFrom('drop', 'duplicate', 'reverse', 'swapKinds', 'extraPart', 'noBoundaryParam', 'otherBoundary', 'notMultipart', 'cutAtHalf');
  return fc
    .tuple(parts, fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: partMutations, weight: 1 }), fc.nat())
    .map(([{ list, notes }, mutation, at]) => {
      let items = [...list];
      let contentType = 'multipart/form-data; boundary=FuzzBoundary';
      const i = at % Math.max(1, items.length);
      if (mutation === 'drop') items.splice(i, 1);
      if (mutation === 'duplicate' && items[i]) items.push(items[i]);
      if (mutation === 'reverse') items = items.reverse();
      if (mutation === 'swapKinds') {
        items = items.map(({ name, part }) => ({
          name,
          part: part.headers.some((h) => h.includes('filename')) ? fieldPart(name, part.data) : filePart(name, `${name}.txt`, 'text/plain', part.data),
        }));
      }
      if (mutation === 'extraPart') items.push({ name: 'other', part: filePart('other', 'x.bin', 'application/octet-stream', Buffer.from('xx')) });
      if (mutation === 'noBoundaryParam') contentType = 'multipart/form-data';
      if (mutation === 'otherBoundary') contentType = 'multipart/form-data; boundary=Other';
      if (mutation === 'notMultipart') contentType = 'application/json';
      let body = multipartBytes(
        items.map((x) => x.part),
        'FuzzBoundary',
      ).body;
      if (mutation === 'cutAtHalf') body = body.subarray(0, body.length >> 1);
      return { body, headers: { 'content-type': contentType }, chunked: false, notes: mutation ? [...notes, `multipart: ${mutation}`] : notes };
    });
}

function requestArb(op: Operation, tenant: FuzzTenant, schemas: SchemaArbitraries, pdf: Buffer): fc.Arbitrary<Plan> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const params = fc.tuple(...pathParams.map((p) => pathParamArb(poolFor(tenant, op.path, p.name)).map((v) => [p.name, v] as const)));
  const body = op.body?.type === 'multipart' ? multipartBodyArb(op, schemas, pdf) : jsonBodyArb(op, schemas);
  return fc.record({ auth: authArb, params, query: queryArb(op, tenant), headers: headersArb(op), body }).map(({ auth, params: values, query, headers, body: b }) => {
    let path = op.path;
    const notes: string[] = [];
    for (const [name, v] of values) {
      path = path.replace(`{${name}}`, v.raw);
      if (v.note) notes.push(`${name}: ${v.note}`);
    }
    return {
      auth,
      path: query.query ? `${path}?${query.query}` : path,
      headers: { ...headers.headers, ...b.headers },
      body: b.body,
      chunked: b.chunked,
      notes: [...notes, ...query.notes, ...headers.notes, ...b.notes],
    };
  });
}

// ---------------------------------------------------------------------------------------------

for (const database of testDatabases()) {
  describe(`fuzz: every operation of /v1/openapi.json [${database.name}]`, () => {
    let app: TestApp;
    let tenant: FuzzTenant;
    let doc: any;
    let pdf: Buffer;
    const errorLog = capturedErrorLog();

    before(async function () {
      this.timeout(300_000);
      // Each request comes from its own address through a trusted proxy (the per-IP limit is not under test here).
      app = await startTestApp(await database.get(), { env: { TRUSTED_PROXIES: 'loopback' }, log: errorLog.log });
      doc = (await client(app.url)('GET', '/v1/openapi.json')).body;
      tenant = new FuzzTenant(app);
      pdf = Buffer.from(await multilingualPdf());
    });
    after(async () => {
      try {
        await tenant.cleanUp();
      } finally {
        await app.close();
      }
    });

    it('answers every generated request with a documented status, errors in the error shape, and stays alive', async function () {
      const s = fuzzSettings();
      const operations = operationsOf(doc).filter((op) => !s.only || s.only.includes(op.id));
      assert.ok(operations.length > 0 || s.only, 'the OpenAPI document lists operations');
      const budgetMs = (s.seconds * 1000 * BUDGET_SHARES.openapi) / testDatabases().length;
      const deadline = Date.now() + budgetMs;
      // Bounded by the budget; the slack covers repairs between operations and a slow last request.
      this.timeout(budgetMs * 2 + 600_000);
      console.log(`fuzz: seed=${s.seed} budget=${s.seconds}s; openapi [${database.name}]: ${operations.length} operations, ${(budgetMs / operations.length / 1000).toFixed(1)}s each`);

      const pacer = new BurstPacer({ query: BURST_LIMITS.queryPerKeyPerSecond, documents: BURST_LIMITS.documentsPerKeyPerSecond });
      const allStats: OperationStats[] = [];
      const failures: string[] = [];
      let requestNumber = 0;
      let repairMs = 0;

      for (const [index, op] of operations.entries()) {
        const repairStarted = Date.now();
        await tenant.repair();
        repairMs += Date.now() - repairStarted;
        const stats = new OperationStats(op.id);
        allStats.push(stats);
        const bucket = op.method === 'POST' && op.path === '/v1/query' ? 'query' : op.method === 'POST' && op.path.startsWith('/v1/documents') ? 'documents' : undefined;
        const schemas = new SchemaArbitraries(doc.components?.schemas ?? {}, loreHints(tenant));

        const send = async (plan: Plan): Promise<void> => {
          const headers: Record<string, string> = { 'x-request-id': `fuzz-${(requestNumber += 1)}`, ...plan.headers, 'x-forwarded-for': nextClientAddress() };
          const auth = plan.auth;
          let authorization: string | undefined;
          if (auth.kind === 'key') authorization = `Bearer ${await pacer.take(bucket, tenant.keys[auth.role].map((k) => k.key))}`;
          else if (auth.kind === 'revoked') authorization = await pacer.take(bucket, [`Bearer ${tenant.revokedKey}`]);
          else if (auth.kind === 'raw') authorization = await pacer.take(bucket, [auth.value]);
          if (authorization !== undefined) headers.authorization = authorization;
          const req: RawRequest = { method: op.method, path: plan.path, headers, body: plan.body, chunked: plan.chunked };
          const described = () =>
            [`${op.id} (${op.method} ${op.path}), key role: ${auth.kind === 'key' ? auth.role : auth.kind}`, `  generated: ${plan.notes.join('; ') || 'a valid-looking request'}`, describeRequest(req)].join('\n');
          let report: string | undefined;
          try {
            const res = await sendRaw(app.url, req);
            stats.count(res.status);
            // A status documented with a body of its own (not the error shape) is checked against that body.
            const documented = op.responses[String(res.status)];
            const problems = contractViolations(res, documented && !documented.$ref?.endsWith('/Error') ? documented : undefined);
            if (problems.length) {
              const inside = errorLog.forRequest(res.headers['x-request-id'] as string | undefined);
              report = [described(), describeResponse(res), `  problems: ${problems.join('; ')}`, ...(inside ? [`  server log: ${inside}`] : [])].join('\n');
            }
          } catch (err) {
            stats.count(0);
            report = `${described()}\n  problems: no answer: ${(err as Error).message}`;
          }
          if (report) {
            stats.fail(report);
            throw new Error(report);
          }
        };

        // fast-check stops waiting for a run when time is up, but the request goes on: it is awaited before the next operation.
        let inFlight: Promise<void> = Promise.resolve();
        const property = fc.asyncProperty(requestArb(op, tenant, schemas, pdf), (plan) => {
          inFlight = send(plan);
          return inFlight;
        });
        const started = Date.now();
        // The budget left, shared by the operations left: repairs and slow requests come out of it too.
        const perOperationMs = Math.max(MIN_OPERATION_MS, (deadline - started) / (operations.length - index));
        const details = await fc.check(property, {
          seed: seedFor(s.seed, op.id),
          numRuns: 1_000_000_000,
          plugins: [fc.interruptAfterTimeLimit(perOperationMs)],
          ...(s.path ? { path: s.path } : {}),
        });
        await inFlight.catch(() => undefined);
        stats.elapsedMs = Date.now() - started;

        // A run cut short before any request completed is no failure of Lore (the request was still checked, above).
        if (details.failed && details.counterexamplePath !== null) {
          const replay = `FUZZ_SEED=${s.seed} FUZZ_OPERATION=${op.id} FUZZ_PATH=${details.counterexamplePath} npx mocha test/fuzz/openapi.fuzz.test.ts`;
          failures.push(
            `${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}\n  fast-check: seed=${details.seed} path=${details.counterexamplePath} after ${details.numRuns} runs and ${details.numShrinks} shrinks\n  replay: ${replay}`,
          );
        } else if (stats.failures.length) {
          // Found by a run whose outcome fast-check no longer waited for (the time was up): not shrunk.
          failures.push(...stats.failures.map((f) => `${f}\n  (found as the time ran out; replay with FUZZ_SEED=${s.seed} FUZZ_OPERATION=${op.id})`));
        }
        const live = await sendRaw(app.url, { method: 'GET', path: '/health/live', headers: {} }).catch((err: Error) => ({ status: 0, error: err.message }));
        if (live.status !== 200) failures.push(`${op.id}: GET /health/live answered ${live.status} after the operation's run`);
      }

      printFigures(`openapi fuzz [${database.name}], seed ${s.seed}`, allStats);
      console.log(`  repairing the tenant's state before each operation took ${(repairMs / 1000).toFixed(1)}s in all; the tenant was deleted by the fuzzer and re-created ${tenant.recreated} times`);
      for (const f of failures) console.log(`\nFAILURE ${f}`);
      assert.equal(failures.length, 0, `${failures.length} failing operations (see above); the first:\n${failures[0]}`);
    });
  });
}
