import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com): the key is the secret's bytes, base64-decoded when the
 * secret has the standard `whsec_` form, else its UTF-8 bytes (receivers then verify with the
 * libraries' raw format). The signed content is `${id}.${timestamp}.${body}`.
 */
export function webhookKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', webhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${digest}`;
}

/** The three headers of a signed delivery. */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': webhookSignature(secret, id, timestampSeconds, body),
  };
}
