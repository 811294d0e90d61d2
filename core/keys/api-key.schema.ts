import { z } from 'zod';
import { ROLES } from '../context.js';

export const createApiKeySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    role: z.enum(ROLES),
  })
  .meta({ id: 'CreateApiKeyRequest' });
export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;

export const createdApiKeySchema = z
  .object({
    id: z.uuid(),
    key: z.string().meta({ description: 'The key itself. Shown only in this response; store it now.' }),
  })
  .meta({ id: 'CreatedApiKey' });

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    role: z.enum(ROLES),
    sub_tenant_id: z.uuid().nullable(),
    key_hint: z.string().meta({ description: 'Last four characters of the key.' }),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof apiKeySchema>;
