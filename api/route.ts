import type { NextFunction, Request, Response, Router } from 'express';
import type { z } from 'zod';
import { type RequestContext, type Role, roleAtLeast } from '../core/context.js';
import { AppError, errors } from '../core/errors.js';
import { parseInput } from '../core/shared/input.js';
import { JSON_TYPES } from './text-input.js';

/**
 * Who may call a route: nobody needs to authenticate (`public`), the instance operator with
 * ADMIN_TOKEN (`operator`, internal API), any valid API key (`any`), or a key with at least a role.
 */
export type Access = 'public' | 'operator' | 'any' | Role;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

type AnyObject = z.ZodType<Record<string, unknown>>;
type Middleware = (req: Request, res: Response, next: NextFunction) => void | Promise<void>;

export interface RouteSpec<P extends AnyObject = AnyObject, B extends z.ZodType = z.ZodType, Q extends AnyObject = AnyObject> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path, e.g. `/v1/knowledge-bases/{kb_id}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  /** Internal and non-REST routes are left out of /v1/openapi.json. */
  internal?: boolean;
  params?: P;
  body?: B;
  /** A multipart/form-data body (parsed by the handler); this schema only documents its parts. */
  multipart?: z.ZodType;
  /**
   * The request body the reference shows and "Try it out" sends: realistic, and successful as it
   * stands (a test runs every one), but for the knowledge base id (EXAMPLE_KNOWLEDGE_BASE_ID), which
   * a reader replaces with theirs. For a multipart body, its text parts (files are picked).
   */
  example?: z.input<B>;
  query?: Q;
  /** Header parameters to document (validated by the handler). */
  headers?: AnyObject;
  status: number;
  response?: ResponseSpec;
  /** Error statuses this route can answer with, for the OpenAPI document (their body is the error shape). */
  errors?: number[];
  /** Other statuses whose body is not the error shape, for the OpenAPI document (the health probes' 503 of spec §4). */
  otherResponses?: Record<number, ResponseSpec>;
  /** A check on the authenticated caller that comes before the role check (its errors take precedence). */
  guard?: (ctx: RequestContext) => void;
  /** Route-specific middleware run before authentication (cheap refusals such as burst limits). */
  beforeAuth?: Middleware[];
  /** Route-specific middleware run after authentication, before validation (per-tenant limits, checks). */
  before?: Middleware[];
  handler: (input: HandlerInput<z.infer<P>, z.infer<B>, z.infer<Q>>) => Promise<unknown>;
}

export interface HandlerInput<P, B, Q> {
  params: P;
  body: B;
  query: Q;
  req: Request;
  res: Response;
  /** Present on routes whose access is a key role or `any`. */
  ctx: RequestContext;
}

/** Identity helper that keeps each route's params/body/query types inferred. */
export function route<P extends AnyObject, B extends z.ZodType, Q extends AnyObject>(
  spec: RouteSpec<P, B, Q>,
): RouteSpec {
  return spec;
}

export function expressPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}

function isJsonRequest(req: Request): boolean {
  return typeof req.is(JSON_TYPES) === 'string';
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Whether an authenticated caller may call a route: its own check first (its errors take
 * precedence), then the role. The REST routes and the portal's reads through them use this one rule.
 */
export function authorize(spec: Pick<RouteSpec, 'access' | 'guard'>, ctx: RequestContext): void {
  spec.guard?.(ctx);
  if (spec.access !== 'any' && spec.access !== 'public' && spec.access !== 'operator' && !roleAtLeast(ctx.principal.role, spec.access)) {
    throw errors.insufficientRole(spec.access);
  }
}

/** Mounts routes on a router: access checks, validation, the handler, and the response status. */
export function mountRoutes(
  router: Router,
  routes: RouteSpec[],
  guards: {
    operator: (req: Request) => void;
    apiKey: (req: Request, res: Response) => Promise<RequestContext>;
  },
): void {
  for (const spec of routes) {
    const handlers = [
      (_req: Request, res: Response, next: NextFunction) => {
        res.locals.routeTemplate = spec.path;
        next();
      },
      ...(spec.beforeAuth ?? []),
      async (req: Request, res: Response, next: NextFunction) => {
        if (spec.access === 'operator') guards.operator(req);
        else if (spec.access !== 'public') authorize(spec, await guards.apiKey(req, res));
        next();
      },
      ...(spec.before ?? []),
      async (req: Request, res: Response) => {
        const params = parseInput(spec.params, req.params, 'path');
        const query = parseInput(spec.query, req.query, 'query');
        let rawBody: unknown = req.body;
        if (spec.body) {
          if (rawBody === undefined && hasBody(req) && !isJsonRequest(req)) {
            throw new AppError(415, 'unsupported_media_type', 'The request body must be application/json.');
          }
          rawBody ??= {};
        }
        const body = parseInput(spec.body, rawBody, 'body');
        const ctx = res.locals.ctx as RequestContext;
        const result = await spec.handler({ params, body, query, req, res, ctx });
        if (res.headersSent) return;
        res.status(spec.status);
        if (result === undefined || spec.status === 204) res.end();
        else res.json(result);
      },
    ];
    router[spec.method](expressPath(spec.path), ...handlers);
  }
}
