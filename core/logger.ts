import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** JSON logs. Authorization headers and key material are redacted should they ever be logged. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'lore' },
    redact: ['req.headers.authorization', '*.api_key', '*.key', '*.client_secret', '*.content'],
  });
}
