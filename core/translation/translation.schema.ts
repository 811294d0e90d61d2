import { z } from 'zod';

export const SUPPORTED_LANGUAGES = ['en', 'nl', 'fr', 'de', 'es', 'it', 'bg', 'ro'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

export const languageSchema = z.enum(SUPPORTED_LANGUAGES);

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
