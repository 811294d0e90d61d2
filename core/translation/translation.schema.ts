import { z } from 'zod';

export const SUPPORTED_LANGUAGES = ['en', 'nl', 'fr', 'de', 'es', 'it', 'bg', 'ro'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

export const languageSchema = z.enum(SUPPORTED_LANGUAGES);

/**
 * The languages an engine may chain a pair through: the eight, and Catalan, whose Apertium pairs
 * (Spanish, French, Italian and English) translate some pairs of the eight better through it than
 * their own direct pair does (see the Apertium adapter).
 */
export const PIVOT_LANGUAGES = [...SUPPORTED_LANGUAGES, 'ca'] as const;
export type PivotLanguage = (typeof PIVOT_LANGUAGES)[number];

/** Translation config object of spec §2; all fields optional, unknown fields refused. */
export const translationConfigSchema = z
  .strictObject({
    query_translation: z.enum(['auto', 'never']).optional(),
    response_translation: z.enum(['always', 'on_request', 'never']).optional(),
    preferred_language: languageSchema.optional(),
    fallback_behaviour: z.enum(['passthrough', 'error']).optional(),
  })
  .meta({ id: 'TranslationConfig' });

export type TranslationConfig = z.infer<typeof translationConfigSchema>;

/** Longest text one translation (or one text of a batch, or a detection) takes, in characters (Unicode code points). */
export const MAX_TRANSLATION_TEXT_CHARS = 5_000;
export const MAX_BATCH_TEXTS = 100;

const languageField = (what: string) =>
  z.string().meta({ description: `${what}: one of ${SUPPORTED_LANGUAGES.join(', ')}; anything else is 400 unsupported_language.` });
const sourceField = languageField('Source language, or `auto` to detect it');

export const translateRequestSchema = z
  .strictObject({
    text: z.string().meta({ description: `At most ${MAX_TRANSLATION_TEXT_CHARS} characters (400 text_too_long).` }),
    source: sourceField,
    target: languageField('Target language'),
  })
  .meta({ id: 'TranslateRequest' });
export type TranslateRequest = z.infer<typeof translateRequestSchema>;

export const translateResponseSchema = z
  .object({
    translated_text: z.string(),
    source: languageSchema.meta({ description: 'The source language (the detected one when the request said `auto`).' }),
    target: languageSchema,
    latency_ms: z.number().meta({ description: 'Time spent detecting and translating, in milliseconds.' }),
  })
  .meta({ id: 'TranslateResponse' });

export const translateBatchRequestSchema = z
  .strictObject({
    texts: z.array(z.string()).meta({
      description: `1-${MAX_BATCH_TEXTS} texts (else 400 invalid_batch_size), each at most ${MAX_TRANSLATION_TEXT_CHARS} characters (400 text_too_long).`,
    }),
    source: sourceField,
    target: languageField('Target language'),
  })
  .meta({ id: 'TranslateBatchRequest' });
export type TranslateBatchRequest = z.infer<typeof translateBatchRequestSchema>;

export const translateBatchResponseSchema = z
  .object({
    translations: z.array(z.string()).meta({ description: 'One per text, in order.' }),
    source: languageSchema.meta({ description: 'The source language (with `auto`: detected once, from all the texts together).' }),
    target: languageSchema,
    latency_ms: z.number(),
  })
  .meta({ id: 'TranslateBatchResponse' });

export const detectRequestSchema = z
  .strictObject({ text: z.string().meta({ description: `At most ${MAX_TRANSLATION_TEXT_CHARS} characters (400 text_too_long).` }) })
  .meta({ id: 'DetectRequest' });

export const detectResponseSchema = z
  .object({
    language: languageSchema.nullable().meta({
      description: 'The detected language; null when the text is in none of the supported languages or gives too little evidence.',
    }),
    confidence: z.number().min(0).max(1).meta({
      description: 'How clearly the text favours `language` over every other language the detector knows (0: a tie, 1: no contest); 0 when language is null.',
    }),
  })
  .meta({ id: 'DetectResponse' });

export const languagePairSchema = z.object({ source: languageSchema, target: languageSchema }).meta({ id: 'LanguagePair' });

export const translationHealthSchema = z
  .object({
    status: z.enum(['healthy', 'degraded', 'disabled']).meta({
      description: 'healthy: every pair works; degraded: some do; disabled: translation is off or no pair works.',
    }),
    models_loaded: z.number().int(),
    models_total: z.number().int().meta({ description: 'Ordered pairs of the supported languages: 56.' }),
    engines: z.array(z.enum(['deepl', 'libretranslate', 'apertium'])).meta({ description: 'The configured engines, best first.' }),
    models: z.array(
      z.object({
        source: languageSchema,
        target: languageSchema,
        status: z.enum(['loaded', 'failed', 'unavailable']).meta({
          description: 'loaded: an engine serves the pair and answered its latest probe; failed: it did not; unavailable: no configured engine serves it.',
        }),
        engine: z.enum(['deepl', 'libretranslate', 'apertium']).nullable(),
        pivot: z.enum(PIVOT_LANGUAGES).nullable().meta({
          description: 'The language the engine translates through, for chained pairs: one of the eight, or Catalan (`ca`) for Apertium.',
        }),
      }),
    ),
  })
  .meta({ id: 'TranslationHealth' });

export const tenantSettingsSchema = z.object({ translation_config: translationConfigSchema }).meta({ id: 'TenantSettings' });
export const updateTenantSettingsSchema = z
  .strictObject({
    translation_config: translationConfigSchema,
  })
  .meta({ id: 'UpdateTenantSettingsRequest' });
