import { z } from 'zod';
import { languageSchema } from '../translation/translation.schema.js';

/** The report a report_generation job produces, whichever engine wrote it (validated before it is stored). */
export const reportSchema = z
  .strictObject({
    language: languageSchema.nullable().meta({ description: "The transcript's language, which the report is written in (null when unknown)." }),
    title: z.string().min(1).max(300),
    summary: z.string().min(1).max(5000),
    key_points: z.array(z.string().min(1).max(1000)).max(20),
    decisions: z.array(z.string().min(1).max(1000)).max(20),
    action_items: z
      .array(
        z.strictObject({
          text: z.string().min(1).max(1000),
          owner: z.string().min(1).max(200).nullable().meta({ description: 'Who said it or was named for it, when the transcript shows it.' }),
        }),
      )
      .max(30),
    participants: z.array(z.string().min(1).max(200)).max(50).meta({ description: 'Speakers named in the transcript ("Name: ..." lines).' }),
  })
  .meta({ id: 'Report' });
export type Report = z.infer<typeof reportSchema>;

/** The result of a transcription job. */
export const transcriptSchema = z
  .strictObject({
    language: languageSchema.nullable().meta({ description: 'The language asked for, or the one detected in the text when auto was asked.' }),
    text: z.string(),
    duration_seconds: z.number().nonnegative(),
    segments: z.array(z.strictObject({ start_seconds: z.number().nonnegative(), end_seconds: z.number().nonnegative(), text: z.string() })),
  })
  .meta({ id: 'Transcript' });
export type Transcript = z.infer<typeof transcriptSchema>;
