import { z } from 'zod';
import { documentSummarySchema } from '../../core/documents/document.schema.js';
import { presentDocument } from '../../core/documents/document.presenter.js';
import { ValidationError } from '../../core/errors.js';
import {
  createKnowledgeBaseSchema,
  knowledgeBaseSchema,
  updateKnowledgeBaseSchema,
} from '../../core/knowledge-bases/knowledge-base.schema.js';
import { presentKnowledgeBase } from '../../core/knowledge-bases/knowledge-base.presenter.js';
import { scopeOf } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';

const kbParams = z.object({ kb_id: uuidParam });
export const knowledgeBaseCreatedSchema = z.object({ id: z.uuid() });

export function knowledgeBaseRoutes(services: Pick<Services, 'knowledgeBases' | 'documents'>): RouteSpec[] {
  const { knowledgeBases, documents } = services;
  return [
    route({
      method: 'post',
      path: '/v1/knowledge-bases',
      operationId: 'createKnowledgeBase',
      summary: 'Create a knowledge base',
      tag: 'Knowledge bases',
      access: 'write',
      body: createKnowledgeBaseSchema,
      example: { name: 'Staff handbook' },
      status: 201,
      response: { description: 'Created', schema: knowledgeBaseCreatedSchema },
      errors: [401, 403, 422],
      handler: async ({ ctx, body }) => ({ id: (await knowledgeBases.create(scopeOf(ctx), body)).id }),
    }),
    route({
      method: 'get',
      path: '/v1/knowledge-bases',
      operationId: 'listKnowledgeBases',
      summary: 'List the knowledge bases the key can see',
      tag: 'Knowledge bases',
      access: 'any',
      status: 200,
      response: { description: 'Knowledge bases, oldest first', schema: z.array(knowledgeBaseSchema) },
      errors: [401],
      handler: async ({ ctx }) => (await knowledgeBases.list(scopeOf(ctx))).map(presentKnowledgeBase),
    }),
    route({
      method: 'patch',
      path: '/v1/knowledge-bases/{kb_id}',
      operationId: 'updateKnowledgeBase',
      summary: 'Rename a knowledge base or change its translation settings',
      tag: 'Knowledge bases',
      access: 'write',
      params: kbParams,
      body: updateKnowledgeBaseSchema,
      example: { name: 'Staff handbook 2026' },
      status: 204,
      errors: [401, 403, 404, 422],
      before: [
        (req, _res, next) => {
          const body = req.body as unknown;
          if (typeof body === 'object' && body !== null && 'dimensions' in body) {
            throw new ValidationError([{ field: 'body.dimensions', message: 'dimensions cannot be changed after creation' }]);
          }
          next();
        },
      ],
      handler: async ({ ctx, params, body }) => {
        await knowledgeBases.update(scopeOf(ctx), params.kb_id, body);
      },
    }),
    route({
      method: 'get',
      path: '/v1/knowledge-bases/{kb_id}/documents',
      operationId: 'listKnowledgeBaseDocuments',
      summary: 'List the documents of a knowledge base',
      tag: 'Knowledge bases',
      access: 'any',
      params: kbParams,
      status: 200,
      response: { description: 'Documents, oldest first', schema: z.array(documentSummarySchema) },
      errors: [401, 404],
      handler: async ({ ctx, params }) => (await documents.listOfKnowledgeBase(scopeOf(ctx), params.kb_id)).map(presentDocument),
    }),
  ];
}
