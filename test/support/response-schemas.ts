import type { z } from 'zod';
import type { RouteSpec } from '../../api/route.js';

/**
 * The app's routes by method and path template, to find which route answered a request the way
 * Express does: the first route, in mounting order, whose template matches the path (one segment
 * per `{param}`, case-insensitive, an optional trailing slash).
 */
export class RouteTable {
  private readonly entries: Array<{ spec: RouteSpec; pattern: RegExp }>;

  constructor(routes: RouteSpec[]) {
    this.entries = routes.map((spec) => ({ spec, pattern: templatePattern(spec.path) }));
  }

  match(method: string, path: string): RouteSpec | undefined {
    const pathname = path.split(/[?#]/, 1)[0] ?? '';
    const lower = method.toLowerCase();
    return this.entries.find((e) => e.spec.method === lower && e.pattern.test(pathname))?.spec;
  }

  /**
   * Throws when a route answers its success status with a body its declared response schema
   * refuses; other statuses (errors, and alternative successes such as a 200 for an existing
   * record where 201 is declared) are not what the schema describes.
   */
  check(method: string, path: string, response: { status: number; contentType: string; body: unknown }): void {
    const spec = method.toUpperCase() === 'HEAD' ? undefined : this.match(method, path);
    const schema = spec?.response?.schema;
    if (!spec || !schema || response.status !== spec.status) return;
    const declared = spec.response?.contentType ?? 'application/json';
    if (!declared.includes('json')) return;
    const where = `${method.toUpperCase()} ${spec.path} (${spec.operationId}) answered ${response.status}`;
    if (!response.contentType.includes('json')) {
      throw new Error(`${where} with ${response.contentType || 'no content type'}, not the JSON body its response schema declares`);
    }
    const problems = schemaMismatches(schema, response.body);
    if (problems.length) throw new Error(`${where} with a body that does not match its response schema:\n  ${problems.join('\n  ')}`);
  }
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

/**
 * What is wrong with `body` for `schema`: each issue zod finds (its field path, message and the
 * value there), and each field the body has that the schema does not declare (zod would strip it
 * silently, and the OpenAPI document would not mention it). Empty when the body matches.
 */
export function schemaMismatches(schema: z.ZodType, body: unknown): string[] {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => {
      const at = fieldPath(issue.path);
      return `${at}: ${issue.message} (returned: ${preview(valueAt(body, issue.path))})`;
    });
  }
  return undeclaredFields(body, parsed.data, []).map((p) => `${fieldPath(p)}: not declared by the schema (returned: ${preview(valueAt(body, p))})`);
}

/** Paths of the object keys in `body` that the parsed value lost (the schema stripped them). */
function undeclaredFields(body: unknown, parsed: unknown, at: PropertyKey[]): PropertyKey[][] {
  if (Array.isArray(body) && Array.isArray(parsed)) {
    return body.flatMap((item, i) => undeclaredFields(item, parsed[i], [...at, i]));
  }
  if (isPlainObject(body) && isPlainObject(parsed)) {
    return Object.keys(body).flatMap((key) => (key in parsed ? undeclaredFields(body[key], parsed[key], [...at, key]) : [[...at, key]]));
  }
  return [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (!path.length) return '(the body)';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i ? '.' : ''}${String(key)}`)).join('');
}

function preview(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
