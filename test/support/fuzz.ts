/**
 * The machinery of the fuzz suites (test/fuzz): settings and budget, raw HTTP, the response
 * contract every answer must keep, per-operation figures, client-side pacing under Lore's burst
 * limits, JSON values generated from JSON schemas (valid ones and their mutations), and multipart
 * bodies built byte by byte.
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import type { Logger } from 'pino';
import { createLogger } from '../../core/logger.js';

// ---------------------------------------------------------------------------------------------
// Settings

export interface FuzzSettings {
  seed: number;
  /** The whole fuzz suite's budget, in seconds. */
  seconds: number;
  /** Run only the operations (or multipart fuzzers) whose name is listed (FUZZ_OPERATION=a,b). */
  only: string[] | undefined;
  /** Replay one counterexample: fast-check's path (with FUZZ_SEED and FUZZ_OPERATION). */
  path: string | undefined;
}

/** Small enough that `npm test` stays CI-friendly; `npm run fuzz` gives 30 minutes. */
export const DEFAULT_FUZZ_SECONDS = 50;

/** How the budget is shared by the suites (they run one after the other). */
export const BUDGET_SHARES = { openapi: 0.7, multipart: 0.2, portal: 0.1 } as const;

let settings: FuzzSettings | undefined;

/** Read once, so both suites print and use the same seed. */
export function fuzzSettings(): FuzzSettings {
  if (settings) return settings;
  const env = process.env;
  const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  const seconds = env.FUZZ_SECONDS ? Number(env.FUZZ_SECONDS) : DEFAULT_FUZZ_SECONDS;
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${env.FUZZ_SEED}`);
  if (!(seconds > 0)) throw new Error(`FUZZ_SECONDS must be a positive number, not ${env.FUZZ_SECONDS}`);
  settings = {
    seed,
    seconds,
    only: env.FUZZ_OPERATION ? env.FUZZ_OPERATION.split(',').map((s) => s.trim()) : undefined,
    path: env.FUZZ_PATH || undefined,
  };
  return settings;
}

/** A seed per operation, derived from the run's seed, so one operation can be replayed alone. */
export function seedFor(seed: number, name: string): number {
  let h = 0x811c9dc5;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (seed ^ h) | 0;
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP

export interface RawRequest {
  method: string;
  /** Path and query, already percent-encoded as they go on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Sends one request on a fresh connection. A server that answers before reading the whole body
 * (a refusal by Content-Length) may reset the connection while the body is still going out: the
 * answer counts, the write error does not. No answer at all is an error.
 */
export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs = 60_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answered: RawResponse | undefined;
    const headers: Record<string, string> = { connection: 'close', ...req.headers };
    if (req.body && !req.chunked && headers['content-length'] === undefined) headers['content-length'] = String(req.body.length);
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    const r = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, setHost: headers.host === undefined });
    const timer = setTimeout(() => r.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        answered = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
        resolve(answered);
      });
    });
    r.on('error', (err) => {
      if (answered) return;
      clearTimeout(timer);
      reject(err);
    });
    if (req.body?.length) r.write(req.body);
    r.end();
  });
}

/**
 * Sends bytes exactly as given (request line, headers and body: nothing checked or fixed on the
 * way) and reads the first answer until the server closes the connection. Write errors after the
 * answer came (the server refused early and closed) do not count; no answer at all is an error.
 */
export function exchange(baseUrl: string, bytes: Buffer, timeoutMs = 60_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let failure: Error | undefined;
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => (failure ??= err));
    socket.on('close', () => {
      clearTimeout(timer);
      const answer = parseResponse(Buffer.concat(chunks));
      if (answer) resolve(answer);
      else reject(failure ?? new Error('the connection closed without an answer'));
    });
  });
}

/** The first HTTP/1.1 response in `raw` (Content-Length or chunked body), or undefined if there is none. */
function parseResponse(raw: Buffer): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) return undefined;
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = eol < 0 ? 0 : parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return { status: Number(status), headers, body };
}

let clientAddress = 0;

/**
 * A new client address for X-Forwarded-For (believed from loopback with TRUSTED_PROXIES=loopback),
 * so the per-IP limit of 100 requests per second never refuses the fuzzer. The documentation
 * prefix 2001:db8::/32 names nobody.
 */
export function nextClientAddress(): string {
  clientAddress += 1;
  return `2001:db8::${(clientAddress >>> 16).toString(16)}:${(clientAddress & 0xffff).toString(16)}`;
}

// ---------------------------------------------------------------------------------------------
// The contract of every answer

/** The only 5xx answers the spec documents (§7): services that are off or down. */
export const DOCUMENTED_503_CODES = new Set([
  'translation_unavailable',
  'billing_not_available',
  'scribe_api_not_available',
  'transcription_unavailable',
  'report_generation_unavailable',
]);

/**
 * What is wrong with an answer: no 5xx but the documented 503s, and every error in the error shape.
 * `documented` is the body the OpenAPI document gives this status when it is not the error shape
 * (the health probes' 503 of spec §4): then the answer must have that body's required fields.
 */
export function contractViolations(res: RawResponse, documented?: JsonSchema): string[] {
  const problems: string[] = [];
  if (res.status < 400) return problems;
  if (documented) return documentedBodyViolations(res, documented);
  const type = String(res.headers['content-type'] ?? '');
  let body: unknown;
  if (!/^application\/json\b/.test(type)) {
    problems.push(`a ${res.status} answer that is not JSON (Content-Type: ${type || 'none'})`);
  } else {
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      problems.push(`a ${res.status} answer whose body is not valid JSON`);
    }
  }
  const error = body as Record<string, unknown> | undefined;
  if (body !== undefined) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) problems.push('the error body is not an object');
    else {
      for (const field of ['error', 'message', 'request_id']) {
        if (typeof error?.[field] !== 'string') problems.push(`the error body has no string "${field}"`);
      }
      if (res.status === 422) {
        const fields = error?.fields;
        const wellFormed =
          Array.isArray(fields) &&
          fields.length > 0 &&
          fields.every((f) => typeof f === 'object' && f !== null && typeof f.field === 'string' && typeof f.message === 'string');
        if (!wellFormed) problems.push('a 422 without "fields": [{field, message}, ...]');
      }
      if (res.headers['x-request-id'] !== undefined && error?.request_id !== res.headers['x-request-id']) {
        problems.push('request_id differs from the X-Request-Id header');
      }
    }
  }
  const code = typeof error?.error === 'string' ? error.error : undefined;
  if (res.status >= 500 && !(res.status === 503 && code !== undefined && DOCUMENTED_503_CODES.has(code))) {
    problems.push(`status ${res.status}${code ? ` (${code})` : ''} is not a documented answer`);
  }
  if (res.status === 429 && res.headers['retry-after'] === undefined) problems.push('a 429 without Retry-After');
  return problems;
}

function documentedBodyViolations(res: RawResponse, schema: JsonSchema): string[] {
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return [`a ${res.status} answer whose body is not the JSON its documentation gives`];
  }
  const missing = (schema.required ?? []).filter((key) => typeof body !== 'object' || body === null || !Object.hasOwn(body, key));
  return missing.length ? [`a ${res.status} answer without the documented ${missing.join(', ')}`] : [];
}

/**
 * The app's error log in memory (an unhandled error is logged with the request id): a failure
 * report then shows what went wrong inside, not only the 500.
 */
export function capturedErrorLog(): { log: Logger; forRequest(id: string | undefined): string | undefined } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      // Only the recent past is ever looked up.
      if (lines.length > 500) lines.splice(0, lines.length - 500);
      done();
    },
  });
  return {
    log: createLogger({ logLevel: 'error' }, sink),
    forRequest: (id) => {
      if (!id) return undefined;
      const line = lines.find((l) => l.includes(`"requestId":"${id}"`));
      if (!line) return undefined;
      const entry = JSON.parse(line) as { msg?: string; err?: { type?: string; message?: string; stack?: string } };
      return [entry.msg, entry.err?.stack ?? `${entry.err?.type}: ${entry.err?.message}`].filter(Boolean).join(': ').slice(0, 2000);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Figures

export class OperationStats {
  tried = 0;
  readonly statuses = new Map<number, number>();
  readonly failures: string[] = [];
  failedRequests = 0;
  elapsedMs = 0;

  constructor(readonly name: string) {}

  count(status: number): void {
    this.tried += 1;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  /** Keeps the first few distinct reports; every failing request is counted. */
  fail(report: string): void {
    this.failedRequests += 1;
    if (this.failures.length < 3 && !this.failures.includes(report)) this.failures.push(report);
  }
}

export function printFigures(title: string, stats: OperationStats[]): void {
  const width = Math.max(...stats.map((s) => s.name.length), 9);
  const rows = stats.map((s) => {
    const statuses = [...s.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
    return `  ${s.name.padEnd(width)} ${String(s.tried).padStart(7)} ${String(s.failedRequests).padStart(8)} ${(s.elapsedMs / 1000).toFixed(1).padStart(6)}s  ${statuses}`;
  });
  const total = stats.reduce((n, s) => n + s.tried, 0);
  const failed = stats.reduce((n, s) => n + s.failedRequests, 0);
  console.log(
    [
      `${title}: ${total} requests, ${failed} failing`,
      `  ${'operation'.padEnd(width)} ${'requests'.padStart(7)} ${'failures'.padStart(8)} ${'time'.padStart(7)}  statuses`,
      ...rows,
    ].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------
// Describing a request so it can be read and replayed

/** Long runs of one character are written as `{×N 'c'}`, and the whole is cut to `max` characters. */
export function abbreviate(text: string, max = 3000): string {
  const compact = text.replace(/([\s\S])\1{15,}/g, (run, c: string) => `{×${run.length} ${JSON.stringify(c)}}`);
  return compact.length > max ? `${compact.slice(0, max)}… (${compact.length} characters in all)` : compact;
}

export function describeRequest(req: RawRequest): string {
  const body = req.body;
  let shown = '(none)';
  if (body) {
    const text = body.toString('utf8');
    const binary = Buffer.compare(Buffer.from(text, 'utf8'), body) !== 0;
    shown = binary ? `${body.length} bytes, hex: ${abbreviate(body.toString('hex'), 2000)}` : `${body.length} bytes: ${abbreviate(JSON.stringify(text))}`;
  }
  return [
    `  request:  ${req.method} ${abbreviate(req.path, 1000)}${req.chunked ? ' (chunked)' : ''}`,
    `  headers:  ${abbreviate(JSON.stringify(req.headers), 2000)}`,
    `  body:     ${shown}`,
  ].join('\n');
}

export function describeResponse(res: RawResponse): string {
  return `  response: ${res.status} ${String(res.headers['content-type'] ?? '')} ${abbreviate(res.body.toString('utf8'), 1000)}`;
}

// ---------------------------------------------------------------------------------------------
// Pacing under the per-key burst limits

/**
 * Spec §8 limits each API key's bursts on /v1/query and /v1/documents per second. The fuzzer keeps
 * under them itself (sliding one-second windows per credential, one request of slack), so it
 * reaches handlers instead of collecting 429s; it waits only when every key of a pool is busy.
 */
export class BurstPacer {
  private readonly sent = new Map<string, number[]>();
  private turn = 0;

  constructor(private readonly limits: Record<string, number>) {}

  private recent(bucket: string, credential: string, now: number): number[] {
    const id = `${bucket} ${credential}`;
    const times = (this.sent.get(id) ?? []).filter((t) => now - t < 1100);
    this.sent.set(id, times);
    return times;
  }

  /** The credential of `pool` with room in `bucket` (waiting for one if needed), recorded as used. */
  async take(bucket: string | undefined, pool: string[]): Promise<string> {
    const first = pool[0];
    if (first === undefined) throw new Error('an empty pool of credentials');
    const limit = bucket ? this.limits[bucket] : undefined;
    if (!bucket || limit === undefined) return pool[(this.turn += 1) % pool.length] ?? first;
    for (;;) {
      const now = Date.now();
      let best: { credential: string; times: number[] } | undefined;
      for (const credential of pool) {
        const times = this.recent(bucket, credential, now);
        if (!best || times.length < best.times.length) best = { credential, times };
      }
      if (best && best.times.length < limit - 1) {
        best.times.push(now);
        return best.credential;
      }
      const wait = Math.max(5, 1100 - (now - (best?.times[0] ?? now)));
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// JSON values: raw tokens and serialisation

/** JSON text that JSON.stringify cannot produce (-0, 1e400, 2^53+1 exactly, 5,000 nested arrays). */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
}

export type Json = null | boolean | number | string | RawJson | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson);
}

/** Sets a key as an own property, `__proto__` included (an assignment would change the prototype). */
function setKey(o: JsonObject, key: string, value: Json): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function jsonText(v: Json): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (isObject(v)) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

/** A copy of `root` with the value at `path` replaced (or removed when `value` is undefined). */
export function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(root) && typeof head === 'number') {
    const copy = [...root];
    if (rest.length === 0 && value === undefined) copy.splice(head, 1);
    else copy[head] = setAt(copy[head] ?? null, rest, value);
    return copy;
  }
  const copy: JsonObject = {};
  if (isObject(root)) for (const [k, x] of Object.entries(root)) setKey(copy, k, x);
  const key = String(head);
  if (rest.length === 0 && value === undefined) delete copy[key];
  else setKey(copy, key, setAt(Object.hasOwn(copy, key) ? (copy[key] ?? null) : {}, rest, value));
  return copy;
}

export function getAt(root: Json, path: (string | number)[]): Json | undefined {
  let v: Json | undefined = root;
  for (const p of path) {
    if (Array.isArray(v)) v = v[Number(p)];
    else if (isObject(v) && Object.hasOwn(v, String(p))) v = v[String(p)];
    else return undefined;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// JSON schema → valid values

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  description?: string;
}

/**
 * Domain knowledge the schema does not hold (which ids exist, which language codes a free string
 * takes): a value arbitrary for a field, by its path (`['body', 'knowledge_base_id']`), or undefined.
 */
export type Hints = (path: string[], schema: JsonSchema) => fc.Arbitrary<Json> | undefined;

const WORDS = ['tea', 'retrieval', 'Köln', 'thé', 'kennis', 'données', 'знание', 'ceai', 'búsqueda', 'chunk', 'index', 'lore', '2024', 'école', 'Straße'];

/** Text as people write it, in several languages. */
export const wordsArb = (min = 1, max = 12): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max }).map((w) => w.join(' '));

export class SchemaArbitraries {
  constructor(
    private readonly components: Record<string, JsonSchema>,
    private readonly hints: Hints,
  ) {}

  resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
    let s = schema;
    for (let i = 0; s?.$ref && i < 20; i++) s = this.components[s.$ref.replace('#/components/schemas/', '')];
    return s;
  }

  /** The first variant that is not `null`, for schemas that allow null. */
  main(schema: JsonSchema | undefined): JsonSchema | undefined {
    const s = this.resolve(schema);
    const variants = s?.anyOf ?? s?.oneOf;
    if (variants) return this.main(variants.find((v) => this.resolve(v)?.type !== 'null') ?? variants[0]);
    return s;
  }

  types(schema: JsonSchema | undefined): string[] {
    const s = this.main(schema);
    if (!s) return [];
    if (Array.isArray(s.type)) return s.type;
    if (s.type) return [s.type];
    if (s.properties) return ['object'];
    return [];
  }

  /** Values the schema accepts (as far as a schema can tell; hints fill in the rest). */
  valid(schema: JsonSchema | undefined, path: string[]): fc.Arbitrary<Json> {
    const s = this.resolve(schema);
    if (!s) return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
    const hinted = this.hints(path, s);
    if (hinted) return hinted;
    if (s.enum) return fc.constantFrom(...(s.enum as Json[]));
    if (s.const !== undefined) return fc.constant(s.const as Json);
    const variants = s.anyOf ?? s.oneOf;
    if (variants) return fc.oneof(...variants.map((v) => this.valid(v, path)));
    const types = this.types(s);
    if (types.length > 1) {
      return fc.oneof(...types.map((t) => ({ arbitrary: this.validOfType({ ...s, type: t }, t, path), weight: t === 'null' ? 1 : 4 })));
    }
    return this.validOfType(s, types[0], path);
  }

  private validOfType(s: JsonSchema, type: string | undefined, path: string[]): fc.Arbitrary<Json> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
        const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : min + 1_000_000);
        return fc.integer({ min, max });
      }
      case 'number':
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return this.validString(s);
      case 'array': {
        const minLength = s.minItems ?? 0;
        const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 4, 4));
        return fc.array(this.valid(s.items, [...path, '[]']), { minLength, maxLength });
      }
      case 'object': {
        const props = s.properties ?? {};
        const required = new Set(s.required ?? []);
        const model: Record<string, fc.Arbitrary<Json>> = {};
        for (const [key, sub] of Object.entries(props)) model[key] = this.valid(sub, [...path, key]);
        const known = fc.record(model, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
        const extra = s.additionalProperties;
        if (typeof extra !== 'object') return known;
        const keys = (this.hints([...path, '{key}'], { type: 'string' }) as fc.Arbitrary<string> | undefined) ?? fc.string({ minLength: 1, maxLength: 12 });
        const entries = fc.dictionary(keys, this.valid(extra, [...path, '{}']), { maxKeys: 3 });
        return fc.tuple(known, entries).map(([k, e]) => {
          const o: JsonObject = {};
          for (const [key, v] of Object.entries(e)) setKey(o, String(key), v);
          for (const [key, v] of Object.entries(k)) setKey(o, key, v);
          return o;
        });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
    }
  }

  private validString(s: JsonSchema): fc.Arbitrary<Json> {
    switch (s.format) {
      case 'uuid':
        return fc.uuid();
      case 'email':
        return fc.emailAddress();
      case 'date-time':
        return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      default:
    }
    if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
    const minLength = s.minLength ?? 0;
    const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 60, 60));
    return fc.oneof(
      { arbitrary: wordsArb().filter((w) => w.length >= minLength && w.length <= maxLength), weight: 3 },
      { arbitrary: fc.string({ minLength: Math.max(minLength, 1), maxLength }), weight: 2 },
      { arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }), weight: 1 },
    );
  }

  /** One plain value the schema accepts, chosen by `variant` (for filling arrays to a boundary). */
  sample(schema: JsonSchema | undefined, variant: number): Json {
    const s = this.main(schema);
    if (!s) return 'x';
    if (s.enum?.length) return s.enum[variant % s.enum.length] as Json;
    switch (this.types(s)[0]) {
      case 'string':
        if (s.format === 'uuid') return `00000000-0000-4000-8000-${String(variant).padStart(12, '0').slice(-12)}`;
        return 'a'.repeat(Math.max(1, s.minLength ?? 1));
      case 'integer':
      case 'number':
        return s.minimum ?? 1;
      case 'boolean':
        return true;
      case 'array':
        return [];
      case 'object': {
        const o: JsonObject = {};
        for (const key of s.required ?? []) setKey(o, key, this.sample(s.properties?.[key], variant));
        return o;
      }
      default:
        return null;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Mutations

  /** Every place in `value` a mutation can hit: present values, and fields the schema allows but the value lacks. */
  slots(value: Json, schema: JsonSchema | undefined, path: (string | number)[] = [], out: Slot[] = []): Slot[] {
    out.push({ path, schema, present: true });
    const s = this.main(schema);
    if (isObject(value)) {
      const props = s?.properties ?? {};
      for (const [key, sub] of Object.entries(props)) {
        if (Object.hasOwn(value, key)) this.slots(value[key] ?? null, sub, [...path, key], out);
        else out.push({ path: [...path, key], schema: sub, present: false });
      }
      const extra = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
      for (const [key, v] of Object.entries(value)) if (!Object.hasOwn(props, key)) this.slots(v, extra, [...path, key], out);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => this.slots(v, s?.items, [...path, i], out));
    }
    return out;
  }

  /** Applies one mutation; returns the new value and a note of what was done where. */
  mutate(value: Json, schema: JsonSchema | undefined, m: Mutation, location: string): { value: Json; note: string } {
    const all = this.slots(value, schema);
    const where = (slot: Slot) => [location, ...slot.path].join('.');
    const pick = <T>(list: T[]): T | undefined => list[m.at % Math.max(1, list.length)];
    const variant = <T>(list: readonly T[]): T => list[m.variant % list.length]!;
    const objects = all.filter((slot) => slot.present && isObject(getAt(value, slot.path) ?? null));
    switch (m.kind) {
      case 'wrongType': {
        const slot = pick(all)!;
        const replacement = variant(WRONG_TYPES);
        return { value: setAt(value, slot.path, replacement), note: `${where(slot)} := ${short(replacement)} (wrong type)` };
      }
      case 'boundary': {
        const bounded = all.filter((slot) => ['string', 'integer', 'number', 'array'].includes(this.types(slot.schema)[0] ?? ''));
        const slot = pick(bounded);
        if (!slot) return this.mutate(value, schema, { ...m, kind: 'wrongType' }, location);
        const candidates = this.boundaryValues(slot.schema, m.variant);
        const replacement = variant(candidates);
        return { value: setAt(value, slot.path, replacement.value), note: `${where(slot)} := ${replacement.label}` };
      }
      case 'badText': {
        const bad = variant(BAD_TEXT);
        const slot = pick(all.filter((x) => x.present))!;
        const current = getAt(value, slot.path);
        if (isObject(current ?? null) && m.variant % 2 === 0) {
          const o = { ...(current as JsonObject) };
          setKey(o, `k${bad.text}`, 'v');
          return { value: setAt(value, slot.path, o), note: `${where(slot)}: a key holding ${bad.label}` };
        }
        const text = typeof current === 'string' ? current : 'text';
        const at = text.length === 0 ? 0 : m.at % (text.length + 1);
        const replacement = text.slice(0, at) + bad.text + text.slice(at);
        return { value: setAt(value, slot.path, replacement), note: `${where(slot)}: ${bad.label} inserted` };
      }
      case 'longString': {
        const slot = pick(all)!;
        const length = variant(LONG_LENGTHS);
        const char = variant(['a', 'é', '€', '😀', ' ']);
        return { value: setAt(value, slot.path, char.repeat(length)), note: `${where(slot)} := ${length} × ${JSON.stringify(char)}` };
      }
      case 'oddNumber': {
        const numeric = all.filter((slot) => ['integer', 'number'].includes(this.types(slot.schema)[0] ?? ''));
        const slot = pick(numeric.length && m.variant % 4 !== 0 ? numeric : all)!;
        const odd = variant(ODD_NUMBERS);
        return { value: setAt(value, slot.path, odd), note: `${where(slot)} := ${jsonText(odd)}` };
      }
      case 'dropRequired': {
        const options = all.flatMap((slot) => {
          const s = this.main(slot.schema);
          const v = slot.present ? getAt(value, slot.path) : undefined;
          return isObject(v ?? null) ? (s?.required ?? []).filter((k) => Object.hasOwn(v as JsonObject, k)).map((k) => [...slot.path, k]) : [];
        });
        const path = pick(options);
        if (!path) return { value: setAt(value, [], {}), note: `${location} := {} (required fields missing)` };
        return { value: setAt(value, path, undefined), note: `${[location, ...path].join('.')} removed (required)` };
      }
      case 'extraField':
      case 'oddKey': {
        const slot = pick(objects);
        if (!slot) return { value: setAt(value, [], { unexpected: 1 }), note: `${location} := {"unexpected": 1}` };
        const key = m.kind === 'oddKey' ? variant(ODD_KEYS) : `unknown_${m.variant % 100}`;
        const o = { ...(getAt(value, slot.path) as JsonObject) };
        setKey(o, key, variant(WRONG_TYPES));
        return { value: setAt(value, slot.path, o), note: `${where(slot)}: extra key ${JSON.stringify(key)}` };
      }
      case 'deepNest': {
        const slot = pick(all)!;
        const nest = deepNesting(m.variant);
        return { value: setAt(value, slot.path, nest), note: `${where(slot)} := ${nest.label}` };
      }
    }
  }

  private boundaryValues(schema: JsonSchema | undefined, variant: number): { value: Json; label: string }[] {
    const s = this.main(schema);
    const type = this.types(s)[0];
    if (type === 'string') {
      const min = s?.minLength ?? 0;
      const lengths = s?.maxLength !== undefined ? [min - 1, min, s.maxLength, s.maxLength + 1] : [min - 1, min, 4096, 4097, 5000, 5001, 65_536];
      const char = ['a', 'é', '€', '😀', ' ', '\u00a0'][variant % 6]!;
      return [...new Set(lengths.filter((n) => n >= 0))].map((n) => ({ value: char.repeat(n), label: `${n} × ${JSON.stringify(char)} (length bound)` }));
    }
    if (type === 'array') {
      const min = s?.minItems ?? 0;
      const counts = s?.maxItems !== undefined ? [min - 1, min, s.maxItems, s.maxItems + 1] : [min - 1, min, 100, 101, 1000];
      return [...new Set(counts.filter((n) => n >= 0))].map((n) => ({
        value: Array.from({ length: n }, (_, i) => this.sample(s?.items, variant + i)),
        label: `an array of ${n} items (item bound)`,
      }));
    }
    const min = s?.minimum ?? s?.exclusiveMinimum;
    const max = s?.maximum ?? s?.exclusiveMaximum;
    const numbers = [
      ...(min !== undefined ? [min - 1, min, min + 0.5] : [-1, 0]),
      ...(max !== undefined ? [max, max + 1, max - 0.5] : [2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER]),
    ];
    return numbers.map((n) => ({ value: n, label: `${n} (range bound)` }));
  }
}

export interface Slot {
  path: (string | number)[];
  schema: JsonSchema | undefined;
  present: boolean;
}

export const MUTATION_KINDS = ['wrongType', 'boundary', 'badText', 'longString', 'oddNumber', 'dropRequired', 'extraField', 'oddKey', 'deepNest'] as const;
export interface Mutation {
  kind: (typeof MUTATION_KINDS)[number];
  at: number;
  variant: number;
}
export const mutationArb: fc.Arbitrary<Mutation> = fc.record({ kind: fc.constantFrom(...MUTATION_KINDS), at: fc.nat(), variant: fc.nat() });

const WRONG_TYPES: Json[] = [null, true, false, 0, -1, 1.5, '', 'string', [], [null], ['a', 1], {}, { a: 'b' }];

/** NUL, unpaired surrogates and other characters that are valid JSON but may not be storable. */
export const BAD_TEXT = [
  { text: '\u0000', label: 'NUL (U+0000)' },
  { text: '\ud800', label: 'a lone high surrogate (U+D800)' },
  { text: '\udfff', label: 'a lone low surrogate (U+DFFF)' },
  { text: '\udc00\ud800', label: 'a reversed surrogate pair' },
  { text: '\u0001\u001f\u007f', label: 'control characters' },
  { text: '\ufeff\u202e\u200b', label: 'BOM, RTL override, zero-width space' },
  { text: '\uffff\ufffe', label: 'non-characters U+FFFF, U+FFFE' },
  { text: "'; DROP TABLE tenants; --", label: 'SQL' },
  { text: '%00%ED%A0%80', label: 'percent-escapes' },
  { text: '\\u0000', label: 'an escaped NUL in the text' },
] as const;

const LONG_LENGTHS = [10_000, 100_000, 1_100_000] as const;

export const ODD_NUMBERS: Json[] = [
  new RawJson('-0', '-0'),
  1e308,
  -1e308,
  new RawJson('1e309', '1e309 (Infinity)'),
  new RawJson('-1e309', '-1e309'),
  new RawJson('1e-400', '1e-400 (underflow)'),
  new RawJson('9007199254740993', '2^53+1'),
  new RawJson('123456789012345678901234567890', 'a 30-digit integer'),
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 63,
  -1,
  0.5,
  1.5,
  Number.MIN_VALUE,
  new RawJson('1.0', '1.0'),
  new RawJson('1E2', '1E2'),
];

const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'a.b', '$where', 'tags.x', 'id', 'tenant_id', 'sub_tenant_id', 'role'];

/** Deeply nested arrays or objects, past any depth a walker would follow by recursion. */
export function deepNesting(variant: number): RawJson {
  const depth = [5000, 65, 5000, 50_000][variant % 4]!;
  if (variant % 3 === 0) return new RawJson('['.repeat(depth) + ']'.repeat(depth), `${depth} nested arrays`);
  if (variant % 3 === 1) return new RawJson('{"a":'.repeat(depth) + 'null' + '}'.repeat(depth), `${depth} nested objects`);
  return new RawJson('[{"a":'.repeat(depth) + '1' + '}]'.repeat(depth), `${depth} nested arrays of objects`);
}

function short(v: Json): string {
  return abbreviate(jsonText(v), 60);
}

// ---------------------------------------------------------------------------------------------
// Multipart bodies, byte by byte

export interface Part {
  /** The whole header block of the part (without the blank line that ends it). */
  headers: string[];
  data: Buffer;
}

export function fieldPart(name: string, value: string | Buffer): Part {
  return { headers: [`Content-Disposition: form-data; name="${name}"`], data: Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8') };
}

export function filePart(name: string, fileName: string | undefined, contentType: string | undefined, data: Buffer): Part {
  const asciiName = fileName === undefined || /^[\x20-\x7e]*$/.test(fileName);
  const disposition =
    fileName === undefined
      ? `form-data; name="${name}"`
      : asciiName
        ? `form-data; name="${name}"; filename="${fileName.replace(/["\\]/g, '_')}"`
        : `form-data; name="${name}"; filename*=UTF-8''${encodeURIComponent(fileName.replace(/[\ud800-\udfff]/g, '\ufffd'))}`;
  return { headers: [`Content-Disposition: ${disposition}`, ...(contentType ? [`Content-Type: ${contentType}`] : [])], data };
}

/** The bytes of a multipart body, and where each part starts (for cutting it at every boundary). */
export function multipartBytes(parts: Part[], boundary: string): { body: Buffer; boundaries: number[] } {
  const chunks: Buffer[] = [];
  const boundaries: number[] = [];
  let length = 0;
  const push = (b: Buffer) => {
    chunks.push(b);
    length += b.length;
  };
  for (const part of parts) {
    boundaries.push(length);
    push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`, 'latin1'));
    push(part.data);
    push(Buffer.from('\r\n'));
  }
  boundaries.push(length);
  push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), boundaries };
}
