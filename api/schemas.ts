import { z } from 'zod';

/** Path ids are UUIDs; a malformed one is answered 404 like a missing resource, so it is a string here. */
export const uuidParam = z.string().meta({ format: 'uuid' });

/** The knowledge base the reference's request examples name: a reader puts one of theirs instead. */
export const EXAMPLE_KNOWLEDGE_BASE_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

export const errorResponseSchema = z
  .object({
    error: z.string().meta({ description: 'Machine-readable error code, e.g. `not_found`.' }),
    message: z.string(),
    request_id: z.string(),
    fields: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'On every 422: the offending fields (or usage counters).' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error' });
