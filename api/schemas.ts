import { z } from 'zod';

/** Path ids are UUIDs; a malformed one is answered 404 like a missing resource, so it is a string here. */
export const uuidParam = z.string().meta({ format: 'uuid' });

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
