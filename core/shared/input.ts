import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { type FieldIssue, ValidationError } from '../errors.js';

/**
 * The one rule for text Lore receives, wherever it comes from (JSON bodies, query strings, path
 * parameters, headers, multipart fields and metadata, MCP tool arguments, text files): it must be
 * valid Unicode without U+0000. PostgreSQL's text and jsonb types cannot store NUL, and an unpaired
 * surrogate has no UTF-8 form, so either would fail or be silently altered on the way to the
 * database. Text that arrives as bytes must be valid in its encoding (UTF-8 unless said otherwise):
 * decoders put U+FFFD in place of bytes that are not, which would store something the client never
 * sent. Such input is refused with 422, naming the field, before anything is written.
 */
// eslint-disable-next-line no-control-regex -- NUL is what this rule exists to find.
const FORBIDDEN = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'g');

/** Why a string breaks the rule, or undefined when it keeps it. */
export function forbiddenTextReason(text: string): string | undefined {
  const match = FORBIDDEN.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000'
    ? 'must not contain the NUL character (U+0000)'
    : 'must be valid Unicode (it contains an unpaired surrogate)';
}

/**
 * The largest value of a PostgreSQL `integer` column. A number that lands in one (a count, a rate
 * per minute) is bounded by it in its schema, so a bigger one is a 422 rather than a failed INSERT.
 */
export const PG_INTEGER_MAX = 2_147_483_647;

/** Deepest nesting the walk follows; JSON bodies are parsed already, so this only bounds the work. */
const MAX_DEPTH = 64;

/** Every string in `value` (object keys included) that breaks the rule, as `{field, message}` pairs. */
export function textIssues(value: unknown, location?: string): FieldIssue[] {
  return stringIssues(value, location, forbiddenTextReason);
}

/** Every string in `value` (object keys included) for which `reason` has one, as `{field, message}` pairs. */
function stringIssues(value: unknown, location: string | undefined, reason: (text: string) => string | undefined): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const walk = (v: unknown, path: string[], depth: number): void => {
    if (typeof v === 'string') {
      const why = reason(v);
      if (why) issues.push({ field: fieldName(path), message: why });
      return;
    }
    if (typeof v !== 'object' || v === null || depth >= MAX_DEPTH || Buffer.isBuffer(v)) return;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((item, i) => [String(i), item]) : Object.entries(v);
    for (const [key, item] of entries) {
      const keyReason = Array.isArray(v) ? undefined : reason(key);
      if (keyReason) issues.push({ field: fieldName(path), message: `has a key that ${keyReason}` });
      walk(item, [...path, key], depth + 1);
    }
  };
  walk(value, location ? [location] : [], 0);
  return issues;
}

function fieldName(path: string[]): string {
  return path.length ? path.map((p) => p.replace(FORBIDDEN_ALL, '\uFFFD')).join('.') : '(root)';
}

export const NOT_UTF8 = 'must be valid UTF-8 (it holds bytes that are not)';
const NOT_UTF8_SUMMARY = 'Text in the request is not valid UTF-8.';

/** Bytes that must be UTF-8 text, decoded strictly: 422 naming `field` when they are not, never U+FFFD in their place. */
export function decodeUtf8(bytes: Buffer, field: string): string {
  if (!isUtf8(bytes)) throw new ValidationError([{ field, message: NOT_UTF8 }], NOT_UTF8_SUMMARY);
  return bytes.toString('utf8');
}

/** Stands for bytes that are not UTF-8 while a JSON document is searched for them: a lone surrogate, which no UTF-8 decodes to. */
const INVALID_MARK = '\uDC80';
const REPLACEMENT_BYTES = Buffer.from('\uFFFD');

/**
 * 422 when a JSON document's bytes are not UTF-8 (RFC 8259 §8.1 allows nothing else), naming the
 * fields whose strings hold them (`body.name`), or the whole document when they are outside strings.
 */
export function assertUtf8Json(bytes: Buffer, location: string): void {
  if (isUtf8(bytes)) return;
  let issues: FieldIssue[] = [];
  try {
    const marked = JSON.parse(markInvalidUtf8(bytes).replace(/^\uFEFF/, '')) as unknown;
    issues = stringIssues(marked, location, (text) => (text.includes(INVALID_MARK) ? NOT_UTF8 : undefined));
  } catch {
    // Not JSON once decoded: the document as a whole is at fault.
  }
  throw new ValidationError(issues.length ? issues : [{ field: location, message: NOT_UTF8 }], NOT_UTF8_SUMMARY);
}

/**
 * The text of `bytes` with INVALID_MARK where the UTF-8 decoder put U+FFFD for bytes that are not
 * UTF-8, and U+FFFD where the client sent one (EF BF BD). The bytes are decoded piece by piece
 * between those, which decodes them as a whole would: a complete sequence ends any that precedes it.
 */
function markInvalidUtf8(bytes: Buffer): string {
  const pieces: string[] = [];
  let from = 0;
  for (;;) {
    const at = bytes.indexOf(REPLACEMENT_BYTES, from);
    pieces.push(bytes.toString('utf8', from, at < 0 ? bytes.length : at).replaceAll('\uFFFD', INVALID_MARK));
    if (at < 0) return pieces.join('\uFFFD');
    from = at + REPLACEMENT_BYTES.length;
  }
}

/**
 * 422 when a form body or query string (application/x-www-form-urlencoded) percent-encodes bytes
 * that are not UTF-8, naming the field (`query.token`): form parsers would put U+FFFD in their
 * place, or keep the escape as it is. A `%` that starts no escape is no fault (parsers keep it).
 */
export function assertUtf8Form(text: string, location: string): void {
  const issues: FieldIssue[] = [];
  for (const pair of text.split('&')) {
    const at = pair.indexOf('=');
    const name = percentDecoded(at < 0 ? pair : pair.slice(0, at));
    if (name === undefined) issues.push({ field: location, message: `has a name that ${NOT_UTF8}` });
    else if (at >= 0 && percentDecoded(pair.slice(at + 1)) === undefined) issues.push({ field: `${location}.${name}`, message: NOT_UTF8 });
  }
  if (issues.length) throw new ValidationError(issues, NOT_UTF8_SUMMARY);
}

/** A form component with `+` as a space and its escapes decoded as UTF-8; undefined when they are not UTF-8. */
function percentDecoded(component: string): string | undefined {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    return undefined;
  }
}

/** Turns zod issues into `{field, message}` pairs; `field` is a dotted path such as `body.name`. */
export function zodIssues(error: z.ZodError, location?: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = [location, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ field: [base, key].filter(Boolean).join('.'), message: 'unknown field' });
      }
    } else {
      issues.push({ field: base || '(root)', message: issue.message });
    }
  }
  return issues;
}

/** Throws 422 `validation_failed` when any text in `value` breaks the rule above. */
export function assertStorableText(value: unknown, location?: string): void {
  const issues = textIssues(value, location);
  if (issues.length) throw new ValidationError(issues);
}

/**
 * Input as a schema describes it: the text rule first, then the schema. Failures are 422
 * `validation_failed` with the offending fields, prefixed by `location` (`body`, `query`, ...).
 */
export function parseInput<T>(schema: z.ZodType<T> | undefined, value: unknown, location?: string): T {
  assertStorableText(value, location);
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodIssues(result.error, location));
  return result.data;
}
