import type { z } from 'zod';
import { type FieldIssue, ValidationError } from '../errors.js';

/**
 * The one rule for text Lore receives, wherever it comes from (JSON bodies, query strings, path
 * parameters, multipart fields and metadata, MCP tool arguments, text files): it must be valid
 * Unicode without U+0000. PostgreSQL's text and jsonb types cannot store NUL, and an unpaired
 * surrogate has no UTF-8 form, so either would fail or be silently altered on the way to the
 * database. Such input is refused with 422, naming the field, before anything is written.
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
  const issues: FieldIssue[] = [];
  const walk = (v: unknown, path: string[], depth: number): void => {
    if (typeof v === 'string') {
      const reason = forbiddenTextReason(v);
      if (reason) issues.push({ field: fieldName(path), message: reason });
      return;
    }
    if (typeof v !== 'object' || v === null || depth >= MAX_DEPTH || Buffer.isBuffer(v)) return;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((item, i) => [String(i), item]) : Object.entries(v);
    for (const [key, item] of entries) {
      const keyReason = Array.isArray(v) ? undefined : forbiddenTextReason(key);
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
