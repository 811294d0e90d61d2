import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { presentDocument, presentStoredDocument } from '../../core/documents/document.presenter.js';
import { documentSummarySchema, ingestDocumentSchema } from '../../core/documents/document.schema.js';
import { AppError, ValidationError } from '../../core/errors.js';
import { presentJob } from '../../core/jobs/job.presenter.js';
import { jobSchema } from '../../core/jobs/job.schema.js';
import { presentApiKey, presentCreatedKey } from '../../core/keys/api-key.presenter.js';
import { presentKnowledgeBase } from '../../core/knowledge-bases/knowledge-base.presenter.js';
import { apiKeySchema, createApiKeySchema, createdApiKeySchema } from '../../core/keys/api-key.schema.js';
import { createKnowledgeBaseSchema, knowledgeBaseSchema } from '../../core/knowledge-bases/knowledge-base.schema.js';
import { type OAuthScope, scopesInclude } from '../../core/oauth/oauth.schema.js';
import { BURST_LIMITS } from '../../core/plans.js';
import { queryRequestSchema, queryResponseSchema, queryResultItemSchema } from '../../core/search/search.schema.js';
import type { Services } from '../../runtime/services.js';
import { assertStorableText } from '../../core/shared/input.js';
import { scopeOf } from '../../core/shared/scope.js';
import { MAX_USER_ID_CHARS } from '../../core/sub-tenants/sub-tenant.schema.js';
import { translationConfigSchema } from '../../core/translation/translation.schema.js';
import { checkBurstLimit, checkSubTenantAndUserQueryLimits, checkTenantQueryLimit } from '../middleware/rate-limit.js';
import { uuidParam } from '../schemas.js';
import { type McpCaller, callerOf, contextOf } from './mcp-auth.js';
import { headerText } from '../text-input.js';

export type McpToolServices = Pick<Services, 'queries' | 'knowledgeBases' | 'documents' | 'jobs' | 'keys' | 'adapters'>;

/**
 * The REST schemas, as plain objects: MCP tool schemas must have an object at their root, and the
 * schemas registered with an OpenAPI id would be emitted as references. The fields are the same.
 */
const translationConfig = z.strictObject(translationConfigSchema.shape);
const knowledgeBase = z.object({ ...knowledgeBaseSchema.shape, translation_config: translationConfig });

interface McpTool {
  name: string;
  scope: OAuthScope;
  register(server: McpServer, services: McpToolServices): void;
}

interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  /** The narrowest scope that may call the tool. */
  scope: OAuthScope;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(services: McpToolServices, ctx: RequestContext, args: z.output<I>, caller: McpCaller): Promise<z.input<O>>;
}

const HINTS: Record<string, string> = {
  not_found: 'Check the id: list_knowledge_bases, list_documents and the ids returned by other tools show what this token can see.',
  invalid_knowledge_base_id: 'Pass the id of a knowledge base from list_knowledge_bases.',
  rate_limit_exceeded: 'Wait the number of seconds in retry_after, then call again.',
  per_user_rate_limit_exceeded: 'Wait the number of seconds in retry_after, then call again.',
  quota_exhausted: "The period's included queries are used up; an admin can upgrade the plan (REST /v1/billing/upgrade).",
  payment_required: 'The account is suspended; its administrator must contact support.',
  knowledge_base_limit_reached: "The plan's knowledge-base limit is reached; rename or reuse an existing knowledge base.",
  validation_failed: 'Correct the listed fields and call again.',
  corpus_not_available_on_plan: 'Leave this corpus out of corpora: the plan gives no access to it (REST GET /v1/corpora lists them).',
  dua_not_accepted: "Leave this corpus out of corpora, or have an admin accept its data-use agreement (REST POST /v1/corpora/{slug}/accept-dua).",
};

/** A service error as a tool result: the code, the message, its details, and what to do about it. */
export function toolError(err: unknown, ctx: Pick<RequestContext, 'log' | 'requestId'>): CallToolResult {
  if (!(err instanceof AppError)) {
    ctx.log.error({ err }, 'MCP tool failed');
    return errorResult(`internal_error: An internal error occurred (request id ${ctx.requestId}); try again later.`);
  }
  const details = err instanceof ValidationError ? { fields: err.issues } : err.extra;
  const parts = [`${err.code}: ${err.message}`];
  if (Object.keys(details).length) parts.push(`Details: ${JSON.stringify(details)}`);
  const hint = HINTS[err.code];
  if (hint) parts.push(hint);
  return errorResult(parts.join(' '));
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function tool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): McpTool {
  return {
    name: spec.name,
    scope: spec.scope,
    register(server, services) {
      const config = { title: spec.title, description: spec.description, inputSchema: spec.input, outputSchema: spec.output, annotations: spec.annotations };
      server.registerTool(spec.name, config, (async (args: z.output<I>, extra: { authInfo?: Parameters<typeof callerOf>[0] }) => {
        const caller = callerOf(extra.authInfo);
        // Sessions list only what their token may call; this guards a session whose later requests
        // carry a narrower token.
        if (!scopesInclude(caller.scopes, spec.scope)) {
          return errorResult(
            `insufficient_scope: ${spec.name} needs the ${spec.scope} scope, which this access token lacks. ` +
              `Request a token with scope=${spec.scope} (the OAuth application must be allowed it).`,
          );
        }
        const ctx = contextOf(caller);
        try {
          // The SDK checked the arguments against the tool's schema; this is the rule for all text.
          assertStorableText(args, 'arguments');
          const result = await spec.run(services, ctx, args, caller);
          return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
        } catch (err) {
          return toolError(err, ctx);
        }
      }) as never);
    },
  };
}

const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export const MCP_TOOLS: McpTool[] = [
  tool({
    name: 'search',
    scope: 'mcp:read',
    title: 'Search knowledge bases',
    description:
      'Search the knowledge bases this token can see (all of them, or knowledge_base_ids) and the platform corpora the plan allows, and ' +
      'return the best-matching chunks, best first, with their document (or corpus record) and score. Same parameters and results as ' +
      'POST /v1/query; counts as a query for quotas and billing.',
    input: z.strictObject(queryRequestSchema.shape),
    output: z.object({ ...queryResponseSchema.shape, results: z.array(z.object(queryResultItemSchema.shape)) }),
    annotations: readOnly,
    async run(services, ctx, args, caller) {
      const userId = headerText(caller.userId, 'x-user-id');
      if (userId !== undefined && (userId.length === 0 || userId.length > MAX_USER_ID_CHARS)) {
        throw new ValidationError([{ field: 'header.x-user-id', message: `must be 1-${MAX_USER_ID_CHARS} characters` }]);
      }
      const queryCtx = { ...ctx, userId: userId ?? null };
      const limits = services.adapters;
      await checkBurstLimit(limits, 'query', `oauth:${ctx.principal.id}`, BURST_LIMITS.queryPerKeyPerSecond);
      await checkTenantQueryLimit(limits, queryCtx);
      await checkSubTenantAndUserQueryLimits(limits, queryCtx);
      return services.queries.run(queryCtx, args);
    },
  }),
  tool({
    name: 'list_knowledge_bases',
    scope: 'mcp:read',
    title: 'List knowledge bases',
    description: 'List the knowledge bases this token can see, oldest first (id, name, dimensions, translation settings).',
    input: z.strictObject({}),
    output: z.object({ knowledge_bases: z.array(knowledgeBase) }),
    annotations: readOnly,
    async run(services, ctx) {
      return { knowledge_bases: (await services.knowledgeBases.list(scopeOf(ctx))).map(presentKnowledgeBase) };
    },
  }),
  tool({
    name: 'list_documents',
    scope: 'mcp:read',
    title: 'List the documents of a knowledge base',
    description: 'List the documents of one knowledge base, oldest first, with their indexing status (processing, ready, failed).',
    input: z.strictObject({ knowledge_base_id: uuidParam.meta({ description: 'A knowledge base id from list_knowledge_bases.' }) }),
    output: z.object({ documents: z.array(z.object(documentSummarySchema.shape)) }),
    annotations: readOnly,
    async run(services, ctx, args) {
      return { documents: (await services.documents.listOfKnowledgeBase(scopeOf(ctx), args.knowledge_base_id)).map(presentDocument) };
    },
  }),
  tool({
    name: 'get_job',
    scope: 'mcp:read',
    title: 'Get a job',
    description: 'Get an ingestion job: status (queued, processing, completed, failed), progress in chunks, and a sanitized error if it failed.',
    input: z.strictObject({ job_id: uuidParam.meta({ description: 'The job_id returned by ingest_document.' }) }),
    output: z.object(jobSchema.shape),
    annotations: readOnly,
    async run(services, ctx, args) {
      return presentJob(await services.jobs.get(scopeOf(ctx), args.job_id));
    },
  }),
  tool({
    name: 'ingest_document',
    scope: 'mcp:write',
    title: 'Ingest a document',
    description:
      'Add a text document to a knowledge base. Indexing is asynchronous: the answer holds the job_id; call get_job until it is completed ' +
      '(then the document is searchable). Same fields and limits as POST /v1/documents.',
    input: z.strictObject(ingestDocumentSchema.shape),
    output: z.object({ job_id: z.uuid(), document_id: z.uuid() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(services, ctx, args) {
      await checkBurstLimit(services.adapters, 'documents', `oauth:${ctx.principal.id}`, BURST_LIMITS.documentsPerKeyPerSecond);
      return presentStoredDocument(await services.documents.ingest(scopeOf(ctx), args));
    },
  }),
  tool({
    name: 'create_knowledge_base',
    scope: 'mcp:write',
    title: 'Create a knowledge base',
    description: 'Create a knowledge base (name 1-200 characters; dimensions 1-4096, default 1024, fixed once created). Returns its id.',
    input: z.strictObject({ ...createKnowledgeBaseSchema.shape, translation_config: translationConfig.optional() }),
    output: z.object({ id: z.uuid() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(services, ctx, args) {
      return { id: (await services.knowledgeBases.create(scopeOf(ctx), args)).id };
    },
  }),
  tool({
    name: 'rename_knowledge_base',
    scope: 'mcp:write',
    title: 'Rename a knowledge base',
    description: 'Give a knowledge base a new name (1-200 characters).',
    input: z.strictObject({ knowledge_base_id: uuidParam, name: createKnowledgeBaseSchema.shape.name }),
    output: z.object({ id: z.uuid(), name: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(services, ctx, args) {
      await services.knowledgeBases.update(scopeOf(ctx), args.knowledge_base_id, { name: args.name });
      return { id: args.knowledge_base_id, name: args.name };
    },
  }),
  tool({
    name: 'list_api_keys',
    scope: 'mcp:admin',
    title: 'List API keys',
    description: 'List the active REST API keys (never the keys themselves): id, name, role, last four characters, last use.',
    input: z.strictObject({}),
    output: z.object({ api_keys: z.array(z.object(apiKeySchema.shape)) }),
    annotations: readOnly,
    async run(services, ctx) {
      return { api_keys: (await services.keys.list(scopeOf(ctx))).map(presentApiKey) };
    },
  }),
  tool({
    name: 'create_api_key',
    scope: 'mcp:admin',
    title: 'Create an API key',
    description: 'Create a REST API key with a role (read, write or admin). The key is in this answer only; store it now.',
    input: z.strictObject(createApiKeySchema.shape),
    output: z.object(createdApiKeySchema.shape),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(services, ctx, args) {
      return presentCreatedKey(await services.keys.create(scopeOf(ctx), args));
    },
  }),
  tool({
    name: 'revoke_api_key',
    scope: 'mcp:admin',
    title: 'Revoke an API key',
    description: 'Revoke a REST API key by its id (from create_api_key or list_api_keys); it stops working at once.',
    input: z.strictObject({ api_key_id: uuidParam }),
    output: z.object({ id: z.uuid(), revoked: z.boolean() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(services, ctx, args) {
      await services.keys.revoke(scopeOf(ctx), args.api_key_id);
      return { id: args.api_key_id, revoked: true };
    },
  }),
];

/** The narrowest scope that may call each tool. */
export const TOOL_SCOPES: ReadonlyMap<string, OAuthScope> = new Map(MCP_TOOLS.map((t) => [t.name, t.scope]));
