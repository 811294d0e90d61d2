import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { JSONSchema7 } from 'json-schema';
import { sample } from 'openapi-sampler';
import type { z } from 'zod';
import { ERROR_CODES } from './error-catalogue.js';
import type { RouteSpec } from './route.js';
import { errorResponseSchema } from './schemas.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, malformed, unknown or revoked API key',
  402: 'Payment required or quota exhausted',
  403: 'Role too low or not allowed on this plan',
  404: 'Not found (also for resources of other tenants)',
  409: 'Conflict with the current state',
  413: 'Too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Rate limited; see Retry-After',
  500: 'Internal error',
  503: 'Temporarily unavailable',
};

/**
 * Builds the OpenAPI 3.1 document from the same route specs (and zod schemas) that the app mounts
 * and validates with, so the document cannot drift from the behaviour.
 */
export function buildOpenApiDocument(routes: RouteSpec[], info: { version: string; serverUrl?: string | undefined }) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: `Authorization: Bearer <key_prefix>_<random>`.',
  });
  for (const spec of routes) {
    if (spec.internal) continue;
    const responses: RouteConfig['responses'] = {};
    responses[spec.status] = {
      description: spec.response?.description ?? 'Success',
      ...(spec.response?.schema
        ? { content: { [spec.response.contentType ?? 'application/json']: { schema: spec.response.schema } } }
        : {}),
    };
    for (const [status, other] of Object.entries(spec.otherResponses ?? {})) {
      responses[status] = {
        description: other.description,
        ...(other.schema ? { content: { [other.contentType ?? 'application/json']: { schema: other.schema } } } : {}),
      };
    }
    const errorStatuses = new Set([...(spec.errors ?? []), ...(spec.body ? [422] : []), 500]);
    for (const status of [...errorStatuses].sort()) {
      responses[status] = {
        description: STATUS_TEXT[status] ?? 'Error',
        content: { 'application/json': { schema: errorResponseSchema } },
      };
    }
    registry.registerPath({
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      security: spec.access === 'public' ? [] : [{ ApiKey: [] }],
      ...(spec.access !== 'public' && spec.access !== 'operator'
        ? { description: `Minimum role: ${spec.access === 'any' ? 'any key' : spec.access}.` }
        : {}),
      request: {
        ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
        ...(spec.headers ? { headers: spec.headers as z.ZodObject } : {}),
        ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body, ...exampleOf(spec) } } } } : {}),
        ...(spec.multipart ? { body: { required: true, content: { 'multipart/form-data': { schema: spec.multipart, ...exampleOf(spec) } } } } : {}),
      },
      responses,
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Lore API',
      version: info.version,
      description: 'Multi-tenant, multilingual knowledge retrieval. Errors are `{error, message, request_id, ...}`.',
    },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
    security: [{ ApiKey: [] }],
  });
  addExamples(document);
  return document;
}

function exampleOf(spec: RouteSpec): { example?: unknown } {
  return spec.example === undefined ? {} : { example: spec.example };
}

type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> };
type Operation = { requestBody?: { content?: Record<string, Media> }; responses?: Record<string, { content?: Record<string, Media> }> };

/**
 * An example for every request and response body, so the reference page and client generators show
 * one: a route's own request example (RouteSpec.example) where it has one, else bodies are sampled
 * from their schemas (openapi-sampler), and each error response lists the codes its status carries,
 * one example each.
 */
function addExamples(document: { paths?: unknown }): void {
  const sampleOf = (schema: unknown) => sample(schema as JSONSchema7, { skipReadOnly: true, quiet: true }, document);
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const operation of Object.values(item)) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        if (media.schema && media.example === undefined) media.example = sampleOf(media.schema);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (!json?.schema) continue;
        const codes = Number(status) >= 400 ? ERROR_CODES[Number(status)] : undefined;
        if (codes) {
          json.examples = Object.fromEntries(
            codes.map((code) => [
              code,
              { summary: code, value: { error: code, message: 'What went wrong, for people.', request_id: '3f1c2a9e-6b1d-4c52-9a7e-1d2f3a4b5c6d' } },
            ]),
          );
        } else if (json.example === undefined) {
          json.example = sampleOf(json.schema);
        }
      }
    }
  }
}
