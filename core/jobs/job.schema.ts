import { z } from 'zod';

/** Job types visible through the API (spec §2); the engine also runs internal jobs (corpus ingestion, billing periods). */
export const PUBLIC_JOB_TYPES = ['ingestion', 'transcription', 'report_generation'] as const;
export type PublicJobType = (typeof PUBLIC_JOB_TYPES)[number];
export type JobType = PublicJobType | 'corpus_ingestion' | 'billing_period' | 'callback_delivery';

export const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const jobSchema = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid(),
    document_id: z.uuid().nullable(),
    knowledge_base_id: z.uuid().nullable(),
    job_type: z.enum(PUBLIC_JOB_TYPES),
    status: z.enum(JOB_STATUSES),
    error: z.string().nullable().meta({ description: 'Sanitized reason of the last failure, or null.' }),
    total_chunks: z.number().int(),
    processed_chunks: z.number().int(),
    attempts: z.number().int().meta({ description: 'Times a worker has started this job.' }),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
    result_expires_at: z.iso
      .datetime()
      .nullable()
      .optional()
      .meta({ description: 'Add-on jobs: until when GET /v1/jobs/{id}/result serves the result (null before it exists).' }),
    delivery: z
      .object({
        status: z.enum(['none', 'pending', 'delivered', 'failed']).meta({ description: 'none: no callback_url was given.' }),
        attempts: z.number().int(),
        last_status_code: z.number().int().nullable(),
        last_error: z.string().nullable(),
        delivered_at: z.iso.datetime().nullable(),
      })
      .optional()
      .meta({ description: "Add-on jobs: the delivery of the result to the request's callback_url." }),
  })
  .meta({ id: 'Job' });
export type JobView = z.infer<typeof jobSchema>;
