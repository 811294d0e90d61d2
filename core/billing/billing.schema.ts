import { z } from 'zod';

/** What paid plans and annual billing require: who is invoiced, where, and how they pay. */
export const billingDetailsSchema = z
  .strictObject({
    company_name: z.string().trim().min(1).max(200),
    email: z.email(),
    address: z.string().trim().min(1).max(500),
    country: z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code'),
    vat_id: z.string().trim().min(2).max(32).optional(),
    payment_method: z.enum(['card', 'sepa_debit', 'bank_transfer']),
  })
  .meta({ id: 'BillingDetails' });
