/**
 * A FAKE of the Qdrant vector database's REST API, for tests only (Qdrant itself cannot be
 * installed here). It is a real HTTP server on an ephemeral port, started in-process, that speaks
 * the wire format the official client `@qdrant/js-client-rest` (1.17) sends and expects, so code
 * under test uses the real `QdrantClient` against it unchanged.
 *
 * Implemented (paths as the client sends them):
 * - `GET /` version info (`{title, version: '1.17.0'}`, no envelope, open without an API key as in Qdrant);
 * - `GET /collections`, `GET /collections/{name}`, `GET /collections/{name}/exists`,
 *   `PUT /collections/{name}` (one unnamed dense vector: `vectors: {size, distance}`; the HNSW,
 *   quantization, optimizer, WAL and on-disk settings are stored and shown, never used),
 *   `DELETE /collections/{name}` (`result: false` when there was none, as Qdrant answers);
 * - `PUT /collections/{name}/index`, `DELETE /collections/{name}/index/{field}` (payload indexes are
 *   recorded in `payload_schema`; they change nothing about filtering);
 * - points: `PUT …/points` (upsert, list or batch form), `POST …/points` (retrieve), `GET …/points/{id}`,
 *   `POST …/points/delete` (ids or filter), `POST …/points/search`, `POST …/points/query` (a vector,
 *   `{nearest: vector}`, a point id, or no query), `POST …/points/scroll`, `POST …/points/count`;
 * - filters with Qdrant's semantics (see `matchesFilter`): must / should / must_not / min_should,
 *   nested filters, `match` value / any / except / text / text_any / phrase, `range` (numbers and
 *   datetimes), `values_count`, `is_empty`, `is_null`, `has_id`, `has_vector`, `nested`, JSON-path keys
 *   (`a.b`, `a[0]`, `a[].b`, `a."odd key"`);
 * - distances Cosine (vectors L2-normalised at upsert, as Qdrant does), Dot, Euclid, Manhattan, with
 *   Qdrant's float32 scores, ordering (score, then id) and `score_threshold` semantics;
 * - Qdrant's envelopes: `{result, status: 'ok', time}`, errors `{status: {error}, time}` with 404 for a
 *   missing collection or point, 409 for a collection that already exists, 400 for a malformed body or a
 *   wrong vector size, 422 for a failed validation; `?wait=true` answers `completed`, otherwise
 *   `acknowledged` (every write is applied before answering either way);
 * - `api-key: <key>` (or `Authorization: Bearer <key>`) when started with `apiKey` (401 otherwise);
 * - `failNext(n, status)` to make the next requests fail, and a record of every request.
 *
 * Not implemented: no HNSW (every search is EXACT over the points that pass the filter, so a filtered
 * search always returns `limit` hits when that many match), no quantization, no persistence (state
 * lives in memory and dies with the server), no sharding, replication, shard keys, snapshots, aliases,
 * named, sparse or multi-vectors, payload set/overwrite/delete endpoints, recommend/discover/grouping,
 * prefetch/fusion queries, `order_by`, geo conditions, full-text tokenisation (text matching is a
 * substring test, as Qdrant does without a full-text index), integer ids above 2^53-1, and
 * `update_filter`/`update_mode` on upsert. Asking for any of these is answered 400 naming the fake,
 * rather than silently ignored.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A point id as Qdrant accepts it: an unsigned integer or a UUID (answered in hyphenated lower case). */
export type PointId = number | string;
export type Payload = Record<string, unknown>;
export type Distance = 'Cosine' | 'Dot' | 'Euclid' | 'Manhattan';

export interface FakeQdrantOptions {
  /** When set, every request but `GET /` must carry `api-key: <apiKey>` (or `Authorization: Bearer <apiKey>`), else 401. */
  apiKey?: string;
  /**
   * Upserts (`PUT …/points`) take effect, and are answered, this many milliseconds after they
   * arrive, as on a server across a network that indexes as it writes. Default 0.
   */
  upsertDelayMs?: number;
}

export interface FakeQdrantRequest {
  method: string;
  /** The path as sent, with its query string (e.g. `/collections/c/points?wait=true`). */
  path: string;
}

export interface FakeQdrant {
  /** `http://127.0.0.1:<port>`, for `new QdrantClient({ url })`. */
  url: string;
  /** Every request received, in order, including the ones answered with an injected failure or a 401. */
  requests: FakeQdrantRequest[];
  /** The collection names, sorted. */
  collections(): string[];
  /** How many points a collection holds (throws for a collection that does not exist). */
  points(collection: string): number;
  /** The next `count` requests are answered `status` (default 503) with an error envelope, and have no effect. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

/** An error the fake answers with: Qdrant's status code and message. */
export class FakeQdrantError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'FakeQdrantError';
  }
}

const QDRANT_VERSION = '1.17.0';
const DISTANCES: readonly Distance[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];
const INDEX_TYPES = ['keyword', 'integer', 'float', 'geo', 'text', 'bool', 'datetime', 'uuid'] as const;
const F32_EPSILON = 1.1920929e-7;

const formatError = (message: string) => new FakeQdrantError(400, `Format error in JSON body: ${message}`);
const wrongInput = (message: string) => new FakeQdrantError(400, `Wrong input: ${message}`);
const validationError = (message: string) => new FakeQdrantError(422, `Validation error in JSON body: [${message}]`);
const notFound = (message: string) => new FakeQdrantError(404, `Not found: ${message}`);
const unsupported = (what: string) =>
  new FakeQdrantError(400, `Bad request: ${what} is not supported by the fake Qdrant (test/support/fake-qdrant.server.ts)`);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isNullish = (value: unknown): value is null | undefined => value === null || value === undefined;

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

// ---------------------------------------------------------------------------------------------
// Point ids
// ---------------------------------------------------------------------------------------------

const UUID_HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_SIMPLE = /^[0-9a-f]{32}$/i;

/** A point id as Qdrant parses it (u64 or UUID in any of its textual forms), or a 400. */
export function parsePointId(raw: unknown): PointId {
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw) || raw < 0) throw formatError(`invalid point id ${show(raw)}: an unsigned integer or a UUID is expected`);
    if (!Number.isSafeInteger(raw)) throw unsupported(`integer point id ${raw} (above 2^53-1)`);
    return raw;
  }
  if (typeof raw === 'string') {
    let text = raw;
    if (/^urn:uuid:/i.test(text)) text = text.slice('urn:uuid:'.length);
    else if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
    if (UUID_HYPHENATED.test(text)) return text.toLowerCase();
    if (UUID_SIMPLE.test(text)) {
      const h = text.toLowerCase();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    throw formatError(`invalid point id ${show(raw)}: a UUID string or an unsigned integer is expected`);
  }
  throw formatError(`data did not match any variant of untagged enum ExtendedPointId (${show(raw)})`);
}

const idKey = (id: PointId): string => (typeof id === 'number' ? `#${id}` : id);

/** Qdrant's id order: integers (ascending) before UUIDs (by their bytes, i.e. their hex text). */
export function compareIds(a: PointId, b: PointId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// JSON paths (Qdrant's grammar: `a`, `a.b`, `a[0]`, `a[]`, `a."b.c"`)
// ---------------------------------------------------------------------------------------------

type PathItem = { key: string } | { index: number } | { wildcard: true };

const RAW_KEY = /^[\p{Alphabetic}\p{N}_-]+/u;

/** A payload key parsed as Qdrant does, or a 400 `Invalid json path`. */
export function parseJsonPath(path: unknown): PathItem[] {
  if (typeof path !== 'string') throw formatError(`invalid type: ${show(path)}, expected a json path string`);
  const invalid = () => formatError(`Invalid json path: '${path}'`);
  const items: PathItem[] = [];
  let rest = path;
  const key = (): string | null => {
    const raw = RAW_KEY.exec(rest);
    if (raw) {
      rest = rest.slice(raw[0].length);
      return raw[0];
    }
    const quoted = /^"([^"\\]*)"/.exec(rest);
    if (quoted) {
      rest = rest.slice(quoted[0].length);
      return quoted[1]!;
    }
    return null;
  };
  const first = key();
  if (first === null) throw invalid();
  items.push({ key: first });
  while (rest.length) {
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      const next = key();
      if (next === null) throw invalid();
      items.push({ key: next });
    } else if (rest.startsWith('[]')) {
      rest = rest.slice(2);
      items.push({ wildcard: true });
    } else {
      const index = /^\[(\d+)\]/.exec(rest);
      if (!index) throw invalid();
      rest = rest.slice(index[0].length);
      items.push({ index: Number(index[1]) });
    }
  }
  return items;
}

/** The values at a path, as Qdrant collects them (an array at the end of the path is one value; `[]` spreads it). */
function valuesAt(root: unknown, path: readonly PathItem[]): unknown[] {
  const out: unknown[] = [];
  const walk = (value: unknown, i: number): void => {
    if (value === undefined) return;
    const item = path[i];
    if (!item) {
      out.push(value);
      return;
    }
    if ('key' in item) {
      if (isObject(value)) walk(value[item.key], i + 1);
    } else if ('index' in item) {
      if (Array.isArray(value)) walk(value[item.index], i + 1);
    } else if (Array.isArray(value)) {
      for (const element of value) walk(element, i + 1);
    }
  };
  walk(root, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------

interface FilterContext {
  payload: Payload;
  /** `null` inside a `nested` condition, where `has_id` never matches (as in Qdrant). */
  id: string | null;
}
type Check = (context: FilterContext) => boolean;
type ValueCheck = (value: unknown) => boolean;

/** `must`/`should`/`must_not` accept one condition, a list, or null (Qdrant's MaybeOneOrMany). */
function conditionList(value: unknown, where: string): Check[] | null {
  if (isNullish(value)) return null;
  const list = Array.isArray(value) ? value : [value];
  return list.map((condition, i) => compileCondition(condition, `${where}[${i}]`));
}

function compileFilterObject(filter: unknown, where: string): Check {
  if (isNullish(filter)) return () => true;
  if (!isObject(filter)) throw formatError(`${where}: invalid type: ${show(filter)}, expected a filter object`);
  for (const key of Object.keys(filter)) {
    if (!['should', 'min_should', 'must', 'must_not'].includes(key)) {
      throw formatError(`${where}: unknown field \`${key}\`, expected one of \`should\`, \`min_should\`, \`must\`, \`must_not\``);
    }
  }
  const must = conditionList(filter.must, `${where}.must`);
  const should = conditionList(filter.should, `${where}.should`);
  const mustNot = conditionList(filter.must_not, `${where}.must_not`);
  let minShould: { conditions: Check[]; count: number } | null = null;
  if (!isNullish(filter.min_should)) {
    const m = filter.min_should;
    if (!isObject(m) || !Array.isArray(m.conditions) || !Number.isInteger(m.min_count)) {
      throw formatError(`${where}.min_should: expected {conditions: [...], min_count: integer}`);
    }
    const count = m.min_count as number;
    if (count < 1) throw validationError(`${where}.min_should.min_count: min_count must be greater than 0`);
    minShould = { conditions: m.conditions.map((c, i) => compileCondition(c, `${where}.min_should.conditions[${i}]`)), count };
  }
  return (context) => {
    // An empty `should` list is no constraint, as in Qdrant's search path.
    if (should?.length && !should.some((check) => check(context))) return false;
    if (minShould && minShould.conditions.filter((check) => check(context)).length < minShould.count) return false;
    if (must && !must.every((check) => check(context))) return false;
    if (mustNot?.some((check) => check(context))) return false;
    return true;
  };
}

function payloadFieldKey(value: unknown, where: string): PathItem[] {
  if (!isObject(value) || !('key' in value)) throw formatError(`${where}: expected {key: string}`);
  return parseJsonPath(value.key);
}

/** One condition, recognised in the order Qdrant's untagged `Condition` enum tries them. */
function compileCondition(condition: unknown, where: string): Check {
  if (!isObject(condition)) {
    throw formatError(`${where}: Expected some form of condition, which can be a field condition (like {"key": ..., "match": ... }), or some other mentioned in the documentation`);
  }
  if ('key' in condition) return compileFieldCondition(condition, where);
  if ('is_empty' in condition) {
    const path = payloadFieldKey(condition.is_empty, `${where}.is_empty`);
    return ({ payload }) => valuesAt(payload, path).every((v) => v === null || (Array.isArray(v) && v.length === 0));
  }
  if ('is_null' in condition) {
    const path = payloadFieldKey(condition.is_null, `${where}.is_null`);
    return ({ payload }) => valuesAt(payload, path).some((v) => v === null);
  }
  if ('has_id' in condition) {
    if (!Array.isArray(condition.has_id)) throw formatError(`${where}.has_id: expected a list of point ids`);
    const ids = new Set(condition.has_id.map((id) => idKey(parsePointId(id))));
    return ({ id }) => id !== null && ids.has(id);
  }
  if ('has_vector' in condition) {
    if (typeof condition.has_vector !== 'string') throw formatError(`${where}.has_vector: expected a vector name`);
    // Every point has the one unnamed vector (name ""); there are no named vectors.
    const name = condition.has_vector;
    return ({ id }) => id !== null && name === '';
  }
  if ('nested' in condition) {
    const nested = condition.nested;
    if (!isObject(nested)) throw formatError(`${where}.nested: expected {key, filter}`);
    const path = parseJsonPath(nested.key);
    const last = path.at(-1);
    const arrayPath: PathItem[] = last && 'wildcard' in last ? path : [...path, { wildcard: true }];
    const inner = compileFilterObject(nested.filter, `${where}.nested.filter`);
    return ({ payload }) => valuesAt(payload, arrayPath).some((object) => isObject(object) && inner({ payload: object, id: null }));
  }
  if ('slice' in condition) throw unsupported('the `slice` condition');
  return compileFilterObject(condition, where);
}

function compileFieldCondition(condition: Record<string, unknown>, where: string): Check {
  const path = parseJsonPath(condition.key);
  for (const geo of ['geo_bounding_box', 'geo_radius', 'geo_polygon']) {
    if (!isNullish(condition[geo])) throw unsupported(`the \`${geo}\` condition`);
  }
  const match = isNullish(condition.match) ? null : compileMatch(condition.match, `${where}.match`);
  const range = isNullish(condition.range) ? null : compileRange(condition.range, `${where}.range`);
  const count = isNullish(condition.values_count) ? null : compileValuesCount(condition.values_count, `${where}.values_count`);
  const flag = (name: 'is_empty' | 'is_null'): boolean | null => {
    const value = condition[name];
    if (isNullish(value)) return null;
    if (typeof value !== 'boolean') throw formatError(`${where}.${name}: invalid type: ${show(value)}, expected a boolean`);
    return value;
  };
  const isEmpty = flag('is_empty');
  const isNull = flag('is_null');
  for (const key of Object.keys(condition)) {
    if (!['key', 'match', 'range', 'geo_bounding_box', 'geo_radius', 'geo_polygon', 'values_count', 'is_empty', 'is_null'].includes(key)) {
      throw formatError(`${where}: unknown field \`${key}\` in a field condition`);
    }
  }
  if (!match && !range && !count && isEmpty === null && isNull === null) {
    throw validationError(`${where}: At least one field condition must be specified`);
  }
  // FieldCondition::check_match: any of the value conditions (an array payload value: any element).
  const matchOne = (value: unknown) => (match?.(value) ?? false) || (range?.(value) ?? false);
  // FieldCondition::check, for one value found at the key.
  const check = (value: unknown): boolean => {
    if (count) return count(valueCount(value));
    if (isEmpty !== null) return value === null ? isEmpty : Array.isArray(value) ? (value.length === 0) === isEmpty : !isEmpty;
    if (isNull !== null) return value === null ? isNull : Array.isArray(value) ? value.some((x) => x === null) === isNull : !isNull;
    return Array.isArray(value) ? value.some(matchOne) : matchOne(value);
  };
  // FieldCondition::check_empty: the key is missing.
  const whenMissing = count ? count(0) : isEmpty !== null ? isEmpty : isNull !== null ? !isNull : false;
  return ({ payload }) => {
    const values = valuesAt(payload, path);
    return values.length === 0 ? whenMissing : values.some(check);
  };
}

const valueCount = (value: unknown): number => (value === null ? 0 : Array.isArray(value) ? value.length : 1);

/** `AnyVariants`: a list of strings or a list of integers (an empty list is a list of strings). */
function anyVariants(list: unknown, where: string): { strings: Set<string> } | { integers: Set<number> } {
  if (!Array.isArray(list)) throw formatError(`${where}: expected a list of strings or of integers`);
  if (list.every((x) => typeof x === 'string')) return { strings: new Set<string>(list) };
  if (list.every((x) => Number.isInteger(x))) return { integers: new Set(list as number[]) };
  throw formatError(`${where}: data did not match any variant of untagged enum AnyVariants`);
}

function compileMatch(match: unknown, where: string): ValueCheck {
  if (!isObject(match)) throw formatError(`${where}: expected a match object`);
  if ('value' in match) {
    const expected = match.value;
    if (typeof expected === 'string' || typeof expected === 'boolean') return (v) => v === expected;
    if (Number.isInteger(expected)) return (v) => Number.isInteger(v) && v === expected;
    throw formatError(`${where}.value: data did not match any variant of untagged enum ValueVariants (a string, an integer or a boolean)`);
  }
  if ('text' in match || 'phrase' in match) {
    const text = 'text' in match ? match.text : match.phrase;
    if (typeof text !== 'string') throw formatError(`${where}: the text must be a string`);
    return (v) => typeof v === 'string' && v.includes(text);
  }
  if ('text_any' in match) {
    if (typeof match.text_any !== 'string') throw formatError(`${where}.text_any: the text must be a string`);
    const tokens = match.text_any.split(/\s+/).filter(Boolean);
    return (v) => typeof v === 'string' && tokens.some((token) => v.includes(token));
  }
  if ('any' in match) {
    const any = anyVariants(match.any, `${where}.any`);
    return 'strings' in any
      ? (v) => typeof v === 'string' && any.strings.has(v)
      : (v) => Number.isInteger(v) && any.integers.has(v as number);
  }
  if ('except' in match) {
    const except = anyVariants(match.except, `${where}.except`);
    // Qdrant's table: a value of the listed kind matches when it is not listed; null never matches;
    // any other kind of value (bool, object, float, or a string against integers) matches.
    return (v) => {
      if (v === null) return false;
      if (typeof v === 'string' && 'strings' in except) return !except.strings.has(v);
      if (typeof v === 'number' && 'integers' in except) return !Number.isInteger(v) || !except.integers.has(v);
      return true;
    };
  }
  throw formatError(`${where}: data did not match any variant of untagged enum Match (${show(match)})`);
}

function compileRange(range: unknown, where: string): ValueCheck {
  if (!isObject(range)) throw formatError(`${where}: expected a range object`);
  const bounds: Partial<Record<'lt' | 'gt' | 'gte' | 'lte', unknown>> = {};
  for (const [key, value] of Object.entries(range)) {
    if (key !== 'lt' && key !== 'gt' && key !== 'gte' && key !== 'lte') throw formatError(`${where}: unknown field \`${key}\``);
    if (!isNullish(value)) bounds[key] = value;
  }
  const values = Object.values(bounds);
  let toNumber: (v: unknown) => number | null;
  if (values.every((b) => typeof b === 'number')) {
    toNumber = (v) => (typeof v === 'number' ? v : null);
  } else if (values.every((b) => typeof b === 'string' && !Number.isNaN(Date.parse(b)))) {
    toNumber = (v) => {
      const t = typeof v === 'string' ? Date.parse(v) : NaN;
      return Number.isNaN(t) ? null : t;
    };
    for (const [key, value] of Object.entries(bounds)) bounds[key as keyof typeof bounds] = Date.parse(value as string);
  } else {
    throw formatError(`${where}: data did not match any variant of untagged enum RangeInterface (numbers or RFC 3339 datetimes)`);
  }
  const { lt, gt, gte, lte } = bounds as Partial<Record<'lt' | 'gt' | 'gte' | 'lte', number>>;
  return (v) => {
    const x = toNumber(v);
    if (x === null) return false;
    return (lt === undefined || x < lt) && (gt === undefined || x > gt) && (gte === undefined || x >= gte) && (lte === undefined || x <= lte);
  };
}

function compileValuesCount(range: unknown, where: string): (count: number) => boolean {
  if (!isObject(range)) throw formatError(`${where}: expected a values_count object`);
  const get = (key: string): number | undefined => {
    const value = range[key];
    if (isNullish(value)) return undefined;
    if (!Number.isInteger(value) || (value as number) < 0) throw formatError(`${where}.${key}: expected an unsigned integer`);
    return value as number;
  };
  const [lt, gt, gte, lte] = [get('lt'), get('gt'), get('gte'), get('lte')];
  return (n) => (lt === undefined || n < lt) && (gt === undefined || n > gt) && (gte === undefined || n >= gte) && (lte === undefined || n <= lte);
}

/**
 * A Qdrant filter compiled once (a malformed filter throws a FakeQdrantError with Qdrant's status),
 * then checked against points. `null`/`undefined` matches everything.
 */
export function compileFilter(filter: unknown): (payload: Payload, id: PointId) => boolean {
  const check = compileFilterObject(filter, 'filter');
  return (payload, id) => check({ payload, id: idKey(parsePointId(id)) });
}

/**
 * Whether a point (its payload and id) passes a Qdrant filter, with Qdrant's semantics: `must` all,
 * `should` at least one when not empty, `must_not` none, `min_should` at least `min_count`; `match`
 * and `range` on an array value match when any element does; a condition on a missing key does not
 * match, except `is_empty` (a missing key, null or [] is empty). `is_null` matches only an explicit
 * null, as in Qdrant (a missing key is not null). Keys are Qdrant JSON paths (`tags.department`).
 */
export function matchesFilter(payload: Payload, id: PointId, filter: unknown): boolean {
  return compileFilter(filter)(payload, id);
}

// ---------------------------------------------------------------------------------------------
// Collections and points
// ---------------------------------------------------------------------------------------------

interface StoredPoint {
  id: PointId;
  vector: number[];
  payload: Payload;
}

interface Collection {
  size: number;
  distance: Distance;
  /** The create request's `vectors` object, as shown back in the collection info. */
  vectors: Record<string, unknown>;
  create: Record<string, unknown>;
  points: Map<string, StoredPoint>;
  indexes: Map<string, { data_type: string; params?: Record<string, unknown> }>;
  nextOperationId: number;
}

const DEFAULT_HNSW = { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false };
const DEFAULT_OPTIMIZERS = {
  deleted_threshold: 0.2,
  vacuum_min_vector_number: 1000,
  default_segment_number: 0,
  max_segment_size: null,
  memmap_threshold: null,
  indexing_threshold: 10000,
  flush_interval_sec: 5,
  max_optimization_threads: null,
};
const DEFAULT_WAL = { wal_capacity_mb: 32, wal_segments_ahead: 0 };

/** A `*_config` diff merged over the defaults (null fields in the diff leave the default). */
function merged(defaults: Record<string, unknown>, diff: unknown): Record<string, unknown> {
  if (!isObject(diff)) return { ...defaults };
  return { ...defaults, ...Object.fromEntries(Object.entries(diff).filter(([, v]) => !isNullish(v))) };
}

function parseVector(raw: unknown, size: number, where: string): number[] {
  if (isObject(raw)) throw unsupported(`a named vector (${where})`);
  if (!Array.isArray(raw)) throw formatError(`${where}: expected a vector (a list of numbers)`);
  if (raw.some((x) => Array.isArray(x))) throw unsupported(`a multi-vector (${where})`);
  if (!raw.every((x) => typeof x === 'number' && Number.isFinite(x))) throw formatError(`${where}: a vector holds numbers only`);
  if (raw.length !== size) throw wrongInput(`Vector dimension error: expected dim: ${size}, got ${raw.length}`);
  return (raw as number[]).map(Math.fround);
}

/** What Qdrant stores for a vector: float32, L2-normalised for Cosine (a zero vector is left as it is). */
function preprocess(vector: number[], distance: Distance): number[] {
  if (distance !== 'Cosine') return vector;
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
  return norm < F32_EPSILON ? vector : vector.map((x) => Math.fround(x / norm));
}

/** The raw similarity, larger is better (Euclid and Manhattan negated, as Qdrant scores them internally). */
function similarity(a: number[], b: number[], distance: Distance): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (distance === 'Euclid') s -= (x - y) * (x - y);
    else if (distance === 'Manhattan') s -= Math.abs(x - y);
    else s += x * y;
  }
  return s;
}

/** The score the API answers: the similarity for Cosine/Dot, the distance for Euclid/Manhattan (float32). */
function postprocess(raw: number, distance: Distance): number {
  if (distance === 'Euclid') return Math.fround(Math.sqrt(Math.abs(raw)));
  if (distance === 'Manhattan') return Math.fround(Math.abs(raw));
  return Math.fround(raw);
}

type PayloadSelector = (payload: Payload) => Payload | undefined;

function setAt(target: Payload, keys: string[], value: unknown): void {
  let node = target;
  keys.slice(0, -1).forEach((key) => {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Payload;
  });
  node[keys.at(-1)!] = structuredClone(value);
}

function keyPath(path: unknown): string[] {
  const items = parseJsonPath(path);
  if (!items.every((item) => 'key' in item)) throw unsupported(`a payload selector path with [] or [n] (${show(path)})`);
  return items.map((item) => item.key);
}

/** `with_payload`: true/false, a list of keys, `{include}` or `{exclude}`. */
function payloadSelector(raw: unknown, fallback: boolean): PayloadSelector {
  const value = isNullish(raw) ? fallback : raw;
  if (value === true) return (payload) => structuredClone(payload);
  if (value === false) return () => undefined;
  const include = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.include) ? value.include : null;
  if (include) {
    const paths = include.map(keyPath);
    return (payload) => {
      const out: Payload = {};
      for (const keys of paths) {
        const found = valuesAt(payload, keys.map((key) => ({ key })));
        if (found.length) setAt(out, keys, found[0]);
      }
      return out;
    };
  }
  if (isObject(value) && Array.isArray(value.exclude)) {
    const paths = value.exclude.map(keyPath);
    return (payload) => {
      const out = structuredClone(payload);
      for (const keys of paths) {
        let node: unknown = out;
        for (const key of keys.slice(0, -1)) node = isObject(node) ? node[key] : undefined;
        if (isObject(node)) delete node[keys.at(-1)!];
      }
      return out;
    };
  }
  throw formatError(`with_payload: data did not match any variant of untagged enum WithPayloadInterface (${show(raw)})`);
}

function withVector(raw: unknown): boolean {
  if (isNullish(raw) || raw === false) return false;
  if (raw === true) return true;
  if (Array.isArray(raw)) throw unsupported('with_vector as a list of vector names');
  throw formatError(`with_vector: expected a boolean (${show(raw)})`);
}

function optionalCount(raw: unknown, name: string, fallback: number): number {
  if (isNullish(raw)) return fallback;
  if (!Number.isInteger(raw) || (raw as number) < 0) throw formatError(`${name}: invalid value ${show(raw)}, expected an unsigned integer`);
  return raw as number;
}

function optionalNumber(raw: unknown, name: string): number | null {
  if (isNullish(raw)) return null;
  if (typeof raw !== 'number') throw formatError(`${name}: invalid type ${show(raw)}, expected a number`);
  return raw;
}

function rejectPresent(body: Record<string, unknown>, fields: string[]): void {
  for (const field of fields) if (!isNullish(body[field])) throw unsupported(`\`${field}\``);
}

interface Scored {
  point: StoredPoint;
  score: number;
}

class FakeQdrantState {
  readonly collections = new Map<string, Collection>();

  collection(name: string): Collection {
    const collection = this.collections.get(name);
    if (!collection) throw notFound(`Collection \`${name}\` doesn't exist!`);
    return collection;
  }

  /** Routes one request; returns what goes in `result` (or a raw body for `GET /`). */
  route(method: string, segments: string[], query: URLSearchParams, body: unknown): { result: unknown } | { raw: unknown } {
    const [first, name, sub, action, extra] = segments;
    if (method === 'GET' && segments.length === 0) return { raw: { title: 'qdrant - vector search engine', version: QDRANT_VERSION } };
    if (first !== 'collections') throw notFoundRoute();
    if (name === undefined) {
      if (method === 'GET') return { result: { collections: [...this.collections.keys()].sort().map((n) => ({ name: n })) } };
      throw notFoundRoute();
    }
    const b = body ?? {};
    if (!isObject(b)) throw formatError(`invalid type: ${show(body)}, expected a JSON object`);
    const wait = query.get('wait') === 'true';
    if (sub === undefined) {
      if (method === 'GET') return { result: this.info(name) };
      if (method === 'PUT') return { result: this.create(name, b) };
      if (method === 'DELETE') return { result: this.collections.delete(name) };
      if (method === 'PATCH') throw unsupported('updating a collection');
      throw notFoundRoute();
    }
    if (sub === 'exists' && action === undefined && method === 'GET') return { result: { exists: this.collections.has(name) } };
    if (sub === 'index') {
      if (action === undefined && method === 'PUT') return { result: this.createIndex(name, b, wait) };
      if (action !== undefined && extra === undefined && method === 'DELETE') {
        const collection = this.collection(name);
        collection.indexes.delete(action);
        return { result: this.updated(collection, wait) };
      }
      throw notFoundRoute();
    }
    if (sub !== 'points') throw notFoundRoute();
    if (extra !== undefined) throw notFoundRoute();
    if (action === undefined) {
      if (method === 'PUT') return { result: this.upsert(name, b, wait) };
      if (method === 'POST') return { result: this.retrieve(name, b) };
      throw notFoundRoute();
    }
    if (method === 'POST') {
      switch (action) {
        case 'delete':
          return { result: this.deletePoints(name, b, wait) };
        case 'search':
          return { result: this.search(name, b) };
        case 'query':
          return { result: this.query(name, b) };
        case 'scroll':
          return { result: this.scroll(name, b) };
        case 'count': {
          const collection = this.collection(name);
          rejectPresent(b, ['shard_key']);
          return { result: { count: this.matching(collection, b.filter).length } };
        }
        default:
          throw unsupported(`POST /collections/{name}/points/${action}`);
      }
    }
    if (method === 'GET') {
      const id = parsePointId(/^\d+$/.test(action) ? Number(action) : action);
      const point = this.collection(name).points.get(idKey(id));
      if (!point) throw notFound(`No point with id ${id} found`);
      return { result: { id: point.id, payload: structuredClone(point.payload), vector: [...point.vector] } };
    }
    throw notFoundRoute();
  }

  private create(name: string, body: Record<string, unknown>): boolean {
    if (this.collections.has(name)) throw new FakeQdrantError(409, `Wrong input: Collection \`${name}\` already exists!`);
    if (!name.length || name.length > 255) throw validationError(`collection_name: length must be between 1 and 255`);
    rejectPresent(body, ['sparse_vectors', 'init_from', 'sharding_method']);
    const vectors = body.vectors;
    if (!isObject(vectors)) throw unsupported('a collection without a single unnamed dense vector (`vectors: {size, distance}`)');
    if (!('size' in vectors) && !('distance' in vectors)) throw unsupported('named vectors');
    if (!isNullish(vectors.multivector_config)) throw unsupported('multi-vectors');
    const { size, distance } = vectors;
    if (!Number.isInteger(size) || (size as number) < 0) throw formatError(`vectors.size: invalid value ${show(size)}, expected an unsigned integer`);
    if ((size as number) < 1) throw validationError(`vectors.size: value 0 invalid, must be 1 or larger`);
    if (!DISTANCES.includes(distance as Distance)) {
      throw formatError(`vectors.distance: unknown variant \`${String(distance)}\`, expected one of \`Cosine\`, \`Euclid\`, \`Dot\`, \`Manhattan\``);
    }
    this.collections.set(name, {
      size: size as number,
      distance: distance as Distance,
      vectors: structuredClone(vectors),
      create: structuredClone(body),
      points: new Map(),
      indexes: new Map(),
      nextOperationId: 0,
    });
    return true;
  }

  private info(name: string): unknown {
    const c = this.collection(name);
    const payloadSchema: Record<string, unknown> = {};
    for (const [field, index] of [...c.indexes.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const path = parseJsonPath(field);
      const points = [...c.points.values()].filter((p) => valuesAt(p.payload, path).some((v) => v !== null && !(Array.isArray(v) && !v.length))).length;
      payloadSchema[field] = { ...index, points };
    }
    const count = (field: string) => (isNullish(c.create[field]) ? 1 : c.create[field]);
    return {
      status: 'green',
      optimizer_status: 'ok',
      indexed_vectors_count: 0,
      points_count: c.points.size,
      segments_count: 1,
      config: {
        params: {
          vectors: structuredClone(c.vectors),
          shard_number: count('shard_number'),
          replication_factor: count('replication_factor'),
          write_consistency_factor: count('write_consistency_factor'),
          on_disk_payload: isNullish(c.create.on_disk_payload) ? true : c.create.on_disk_payload,
        },
        hnsw_config: merged(DEFAULT_HNSW, c.create.hnsw_config),
        optimizer_config: merged(DEFAULT_OPTIMIZERS, c.create.optimizers_config),
        wal_config: merged(DEFAULT_WAL, c.create.wal_config),
        quantization_config: isNullish(c.create.quantization_config) ? null : structuredClone(c.create.quantization_config),
        strict_mode_config: isNullish(c.create.strict_mode_config) ? { enabled: false } : structuredClone(c.create.strict_mode_config),
      },
      payload_schema: payloadSchema,
    };
  }

  private updated(collection: Collection, wait: boolean): { operation_id: number; status: 'completed' | 'acknowledged' } {
    return { operation_id: collection.nextOperationId++, status: wait ? 'completed' : 'acknowledged' };
  }

  private createIndex(name: string, body: Record<string, unknown>, wait: boolean): unknown {
    const collection = this.collection(name);
    const field = body.field_name;
    if (typeof field !== 'string') throw formatError('missing field `field_name`');
    parseJsonPath(field);
    const schema = body.field_schema;
    let index: { data_type: string; params?: Record<string, unknown> };
    if (isNullish(schema)) throw unsupported('creating a payload index without `field_schema` (type inference)');
    if (typeof schema === 'string' && (INDEX_TYPES as readonly string[]).includes(schema)) index = { data_type: schema };
    else if (isObject(schema) && typeof schema.type === 'string' && (INDEX_TYPES as readonly string[]).includes(schema.type)) {
      index = { data_type: schema.type, params: structuredClone(schema) };
    } else {
      throw formatError(`field_schema: data did not match any variant of untagged enum PayloadFieldSchema (${show(schema)})`);
    }
    collection.indexes.set(field, index);
    return this.updated(collection, wait);
  }

  private upsert(name: string, body: Record<string, unknown>, wait: boolean): unknown {
    const collection = this.collection(name);
    rejectPresent(body, ['shard_key', 'update_filter']);
    if (!isNullish(body.update_mode) && body.update_mode !== 'upsert') throw unsupported(`update_mode \`${show(body.update_mode)}\``);
    let raw: Array<{ id: unknown; vector: unknown; payload: unknown }>;
    if (Array.isArray(body.points)) {
      raw = body.points.map((p, i) => {
        if (!isObject(p)) throw formatError(`points[${i}]: expected a point object`);
        return { id: p.id, vector: p.vector, payload: p.payload };
      });
    } else if (isObject(body.batch)) {
      const { ids, vectors, payloads } = body.batch;
      if (!Array.isArray(ids) || !Array.isArray(vectors) || ids.length !== vectors.length) {
        throw formatError('batch: expected {ids: [...], vectors: [...]} of the same length');
      }
      if (!isNullish(payloads) && (!Array.isArray(payloads) || payloads.length !== ids.length)) throw formatError('batch.payloads: one per id');
      raw = ids.map((id, i) => ({ id, vector: vectors[i], payload: Array.isArray(payloads) ? payloads[i] : undefined }));
    } else {
      throw formatError('data did not match any variant of untagged enum PointInsertOperations (expected {points: [...]} or {batch: {...}})');
    }
    // Validate every point before applying any.
    const points = raw.map((p, i): StoredPoint => {
      if (p.id === undefined) throw formatError(`points[${i}]: missing field \`id\``);
      const id = parsePointId(p.id);
      const vector = preprocess(parseVector(p.vector, collection.size, `points[${i}].vector`), collection.distance);
      if (!isNullish(p.payload) && !isObject(p.payload)) throw formatError(`points[${i}].payload: expected a JSON object`);
      return { id, vector, payload: isObject(p.payload) ? structuredClone(p.payload) : {} };
    });
    for (const point of points) collection.points.set(idKey(point.id), point);
    return this.updated(collection, wait);
  }

  private retrieve(name: string, body: Record<string, unknown>): unknown {
    const collection = this.collection(name);
    rejectPresent(body, ['shard_key']);
    if (!Array.isArray(body.ids)) throw formatError('missing field `ids`');
    const select = payloadSelector(body.with_payload, true);
    const vectors = withVector(body.with_vector);
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (const raw of body.ids) {
      const key = idKey(parsePointId(raw));
      const point = collection.points.get(key);
      if (!point || seen.has(key)) continue;
      seen.add(key);
      out.push(record(point, select, vectors));
    }
    return out;
  }

  private deletePoints(name: string, body: Record<string, unknown>, wait: boolean): unknown {
    const collection = this.collection(name);
    rejectPresent(body, ['shard_key']);
    if (Array.isArray(body.points)) {
      const keys = body.points.map((id) => idKey(parsePointId(id)));
      for (const key of keys) collection.points.delete(key);
    } else if (isObject(body.filter)) {
      for (const point of this.matching(collection, body.filter)) collection.points.delete(idKey(point.id));
    } else {
      throw formatError('data did not match any variant of untagged enum PointsSelector (expected {points: [...]} or {filter: {...}})');
    }
    return this.updated(collection, wait);
  }

  /** The points passing a filter, in id order. */
  private matching(collection: Collection, filter: unknown): StoredPoint[] {
    const check = compileFilterObject(filter, 'filter');
    return [...collection.points.values()].filter((p) => check({ payload: p.payload, id: idKey(p.id) })).sort((a, b) => compareIds(a.id, b.id));
  }

  /** Exact nearest neighbours: every point passing the filter, scored, best first, ties by id. */
  private nearest(collection: Collection, query: number[], body: Record<string, unknown>, exclude?: string): Scored[] {
    const vector = preprocess(query, collection.distance);
    const threshold = optionalNumber(body.score_threshold, 'score_threshold');
    const smallBetter = collection.distance === 'Euclid' || collection.distance === 'Manhattan';
    return this.matching(collection, body.filter)
      .filter((point) => idKey(point.id) !== exclude)
      .map((point) => ({ point, raw: similarity(vector, point.vector, collection.distance) }))
      .sort((a, b) => b.raw - a.raw || compareIds(a.point.id, b.point.id))
      .map(({ point, raw }) => ({ point, score: postprocess(raw, collection.distance) }))
      .filter(({ score }) => threshold === null || (smallBetter ? score < threshold : score > threshold));
  }

  private search(name: string, body: Record<string, unknown>): unknown {
    const collection = this.collection(name);
    rejectPresent(body, ['shard_key']);
    if (body.vector === undefined) throw formatError('missing field `vector`');
    if (body.limit === undefined) throw formatError('missing field `limit`');
    const query = parseVector(body.vector, collection.size, 'vector');
    const limit = optionalCount(body.limit, 'limit', 10);
    const offset = optionalCount(body.offset, 'offset', 0);
    const select = payloadSelector(body.with_payload, false);
    const vectors = withVector(body.with_vector);
    searchParams(body.params);
    return this.nearest(collection, query, body)
      .slice(offset, offset + limit)
      .map((hit) => scoredPoint(hit, select, vectors));
  }

  private query(name: string, body: Record<string, unknown>): unknown {
    const collection = this.collection(name);
    rejectPresent(body, ['shard_key', 'prefetch', 'lookup_from']);
    if (!isNullish(body.using) && body.using !== '') throw unsupported('named vectors (`using`)');
    const limit = optionalCount(body.limit, 'limit', 10);
    const offset = optionalCount(body.offset, 'offset', 0);
    const select = payloadSelector(body.with_payload, false);
    const vectors = withVector(body.with_vector);
    searchParams(body.params);
    let q = body.query;
    if (isObject(q) && 'nearest' in q) {
      if (!isNullish(q.mmr)) throw unsupported('MMR re-ranking');
      q = q.nearest;
    }
    let hits: Scored[];
    if (isNullish(q)) {
      if (!isNullish(body.score_threshold)) throw wrongInput("A query is needed to use the score_threshold. Can't have score_threshold without defining a query.");
      hits = this.matching(collection, body.filter).map((point) => ({ point, score: 0 }));
    } else if (Array.isArray(q)) {
      hits = this.nearest(collection, parseVector(q, collection.size, 'query'), body);
    } else if (typeof q === 'number' || typeof q === 'string') {
      const id = parsePointId(q);
      const point = collection.points.get(idKey(id));
      if (!point) throw notFound(`No point with id ${id} found`);
      hits = this.nearest(collection, point.vector, body, idKey(id));
    } else {
      throw unsupported(`this kind of query (${show(q).slice(0, 80)})`);
    }
    return { points: hits.slice(offset, offset + limit).map((hit) => scoredPoint(hit, select, vectors)) };
  }

  private scroll(name: string, body: Record<string, unknown>): unknown {
    const collection = this.collection(name);
    rejectPresent(body, ['shard_key', 'order_by']);
    const limit = optionalCount(body.limit, 'limit', 10);
    const select = payloadSelector(body.with_payload, true);
    const vectors = withVector(body.with_vector);
    const all = this.matching(collection, body.filter);
    let start = 0;
    if (!isNullish(body.offset)) {
      const offset = parsePointId(body.offset);
      start = all.findIndex((p) => compareIds(p.id, offset) >= 0);
      if (start < 0) start = all.length;
    }
    const page = all.slice(start, start + limit);
    return { points: page.map((p) => record(p, select, vectors)), next_page_offset: all[start + limit]?.id ?? null };
  }
}

function searchParams(params: unknown): void {
  if (isNullish(params)) return;
  if (!isObject(params)) throw formatError('params: expected an object');
  // hnsw_ef, exact, quantization, indexed_only, acorn: accepted; every search here is exact anyway.
}

function record(point: StoredPoint, select: PayloadSelector, vectors: boolean): Record<string, unknown> {
  const payload = select(point.payload);
  return { id: point.id, ...(payload ? { payload } : {}), ...(vectors ? { vector: [...point.vector] } : {}) };
}

function scoredPoint(hit: Scored, select: PayloadSelector, vectors: boolean): Record<string, unknown> {
  const payload = select(hit.point.payload);
  return {
    id: hit.point.id,
    version: 0,
    score: hit.score,
    ...(payload ? { payload } : {}),
    ...(vectors ? { vector: [...hit.point.vector] } : {}),
  };
}

function notFoundRoute(): FakeQdrantError {
  return new FakeQdrantError(404, 'Not found: no such endpoint in the fake Qdrant (test/support/fake-qdrant.server.ts)');
}

// ---------------------------------------------------------------------------------------------
// The HTTP server
// ---------------------------------------------------------------------------------------------

/** Starts the fake on an ephemeral port of 127.0.0.1. Logs nothing. */
export async function startFakeQdrant(options: FakeQdrantOptions = {}): Promise<FakeQdrant> {
  const state = new FakeQdrantState();
  const requests: FakeQdrantRequest[] = [];
  const failures: number[] = [];

  const send = (response: ServerResponse, status: number, body: unknown, contentType = 'application/json') => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(typeof body === 'string' && contentType !== 'application/json' ? body : JSON.stringify(body));
  };
  const seconds = (started: number) => (performance.now() - started) / 1000;

  const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const method = request.method ?? 'GET';
    const rawPath = request.url ?? '/';
    requests.push({ method, path: rawPath });

    const injected = failures.shift();
    if (injected !== undefined) {
      send(response, injected, { status: { error: `Injected failure ${injected} (fake Qdrant failNext)` }, time: 0 });
      return;
    }

    const url = new URL(rawPath, 'http://fake-qdrant');
    if (options.apiKey !== undefined && url.pathname !== '/') {
      const header = request.headers['api-key'];
      const bearer = request.headers.authorization?.startsWith('Bearer ') ? request.headers.authorization.slice('Bearer '.length) : undefined;
      const key = (Array.isArray(header) ? header[0] : header) ?? bearer;
      if (key === undefined) return send(response, 401, 'Must provide an API key or an Authorization bearer token', 'text/plain; charset=utf-8');
      if (key !== options.apiKey) return send(response, 401, 'Invalid API key or JWT', 'text/plain; charset=utf-8');
    }

    if (options.upsertDelayMs && method === 'PUT' && url.pathname.endsWith('/points')) {
      await new Promise((resolve) => setTimeout(resolve, options.upsertDelayMs));
    }
    try {
      let body: unknown;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim().length) {
        try {
          body = JSON.parse(text);
        } catch (error) {
          throw formatError(error instanceof Error ? error.message : String(error));
        }
      }
      let segments: string[];
      try {
        segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      } catch {
        throw notFoundRoute();
      }
      const answer = state.route(method, segments, url.searchParams, body);
      if ('raw' in answer) send(response, 200, answer.raw);
      else send(response, 200, { result: answer.result, status: 'ok', time: seconds(started) });
    } catch (error) {
      if (error instanceof FakeQdrantError) send(response, error.status, { status: { error: error.message }, time: seconds(started) });
      else send(response, 500, { status: { error: `Service internal error: ${error instanceof Error ? error.message : String(error)}` }, time: seconds(started) });
    }
  };

  const server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    collections: () => [...state.collections.keys()].sort(),
    points: (collection) => state.collection(collection).points.size,
    failNext: (count, status = 503) => {
      for (let i = 0; i < count; i++) failures.push(status);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
