import { z } from 'zod';
import { SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import { reportSchema, transcriptSchema } from './report.schema.js';

/** POST /v1/reports/generate. Emptiness and length are the spec's 400s, checked by the service. */
export const generateReportSchema = z.strictObject({
  transcript: z.string().meta({ description: 'The text to report on; at most REPORT_MAX_CHARS characters (default 200,000).' }),
  callback_url: z.string().optional().meta({ description: 'https URL the result is POSTed to, signed (Standard Webhooks).' }),
  callback_secret: z.string().optional().meta({ description: 'Signing secret, 16-256 characters; required with callback_url. whsec_<base64> or any string.' }),
});

export const transcribeParts = z.object({
  audio: z.string().meta({ format: 'binary', description: 'WAV, MP3, OGG/Opus, FLAC or M4A; the request is at most 25 MB.' }),
  language: z.enum(['auto', ...SUPPORTED_LANGUAGES]).optional().meta({ description: 'Default auto.' }),
  callback_url: z.string().optional(),
  callback_secret: z.string().optional(),
});

export const addonJobAcceptedSchema = z.object({ job_id: z.uuid() }).meta({ id: 'AddonJobAccepted' });

export const jobResultSchema = z
  .object({
    job_id: z.uuid(),
    job_type: z.enum(['transcription', 'report_generation']),
    result: z.union([transcriptSchema, reportSchema]),
  })
  .meta({ id: 'JobResult' });

const engineHealth = z.object({
  status: z.enum(['healthy', 'unavailable', 'disabled']),
  engine: z.string().nullable(),
  languages: z.array(z.enum(SUPPORTED_LANGUAGES)).optional(),
});
export const addonHealthSchema = z.object({ transcription: engineHealth, report_generation: engineHealth }).meta({ id: 'AddonHealth' });

/** The body POSTed to a callback_url (documented in docs/addons.md). */
export const callbackPayloadSchema = z.object({
  job_id: z.uuid(),
  job_type: z.enum(['transcription', 'report_generation']),
  status: z.enum(['completed', 'failed']),
  result: z.union([transcriptSchema, reportSchema]).optional(),
  error: z.string().optional(),
  created_at: z.iso.datetime(),
  completed_at: z.iso.datetime().nullable(),
});
