import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import {
  detectRequestSchema,
  detectResponseSchema,
  languagePairSchema,
  tenantSettingsSchema,
  translateBatchRequestSchema,
  translateBatchResponseSchema,
  translateRequestSchema,
  translateResponseSchema,
  translationHealthSchema,
  updateTenantSettingsSchema,
} from '../../core/translation/translation.schema.js';
import { type RouteSpec, route } from '../route.js';

/**
 * Translation, language detection and the tenant's translation settings. Like the other read
 * endpoints besides /v1/query, these are limited by the global per-IP limit only.
 */
export function translationRoutes(services: Pick<Services, 'translation' | 'translationSettings'>): RouteSpec[] {
  const { translation, translationSettings } = services;
  return [
    route({
      method: 'post',
      path: '/v1/translate',
      operationId: 'translate',
      summary: 'Translate a text (source may be auto)',
      tag: 'Translation',
      access: 'read',
      body: translateRequestSchema,
      status: 200,
      response: { description: 'The translation', schema: translateResponseSchema },
      errors: [400, 401, 403, 500, 503],
      handler: ({ ctx, body }) => translation.translate(ctx, body),
    }),
    route({
      method: 'post',
      path: '/v1/translate/batch',
      operationId: 'translateBatch',
      summary: 'Translate 1-100 texts from one language into another',
      tag: 'Translation',
      access: 'read',
      body: translateBatchRequestSchema,
      status: 200,
      response: { description: 'The translations, in order', schema: translateBatchResponseSchema },
      errors: [400, 401, 403, 500, 503],
      handler: ({ ctx, body }) => translation.translateBatch(ctx, body),
    }),
    route({
      method: 'post',
      path: '/v1/detect',
      operationId: 'detectLanguage',
      summary: 'Detect the language of a text',
      tag: 'Translation',
      access: 'any',
      body: detectRequestSchema,
      status: 200,
      response: { description: 'The language (null when none of the supported ones)', schema: detectResponseSchema },
      errors: [400, 401],
      handler: ({ body }) => Promise.resolve(translation.detectText(body.text)),
    }),
    route({
      method: 'get',
      path: '/v1/translation/health',
      operationId: 'getTranslationHealth',
      summary: 'Status of every language pair',
      tag: 'Translation',
      access: 'read',
      status: 200,
      response: { description: 'Status of the 56 ordered pairs', schema: translationHealthSchema },
      errors: [401, 403],
      handler: () => translation.health(),
    }),
    route({
      method: 'get',
      path: '/v1/translation/languages',
      operationId: 'listTranslationLanguages',
      summary: 'The language pairs this instance translates',
      tag: 'Translation',
      access: 'read',
      status: 200,
      response: { description: 'Available pairs', schema: z.array(languagePairSchema) },
      errors: [401, 403],
      handler: () => translation.languages(),
    }),
    route({
      method: 'get',
      path: '/v1/tenant/settings',
      operationId: 'getTenantSettings',
      summary: "The tenant's translation settings",
      tag: 'Translation',
      access: 'admin',
      status: 200,
      response: { description: 'Settings', schema: tenantSettingsSchema },
      errors: [401, 403],
      handler: ({ ctx }) => translationSettings.get(ctx),
    }),
    route({
      method: 'patch',
      path: '/v1/tenant/settings',
      operationId: 'updateTenantSettings',
      summary: "Replace the tenant's translation settings (fields left out are unset; {} clears them)",
      tag: 'Translation',
      access: 'admin',
      body: updateTenantSettingsSchema,
      status: 200,
      response: { description: 'The stored settings', schema: tenantSettingsSchema },
      errors: [401, 403, 422],
      handler: ({ ctx, body }) => translationSettings.update(ctx, body),
    }),
  ];
}
