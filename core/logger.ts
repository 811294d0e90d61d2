import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Fields that may hold a secret or a tenant's data wherever they appear in a log object, up to two
 * levels deep: credentials (keys, tokens, secrets, hashes, passwords, cookies), e-mail addresses,
 * request bodies and document text. Their values are replaced by `[redacted]`.
 */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'secret',
  'client_secret',
  'callback_secret',
  'token',
  'access_token',
  'refresh_token',
  'api_key',
  'email',
  'key',
  'key_hash',
  'secret_hash',
  'content',
  'text',
  'texts',
  'transcript',
  'body',
  'params',
  'parameters',
];

const REDACT_PATHS = [
  ...SECRET_FIELDS.map((f) => `["${f}"]`),
  ...SECRET_FIELDS.map((f) => `*["${f}"]`),
  ...SECRET_FIELDS.map((f) => `*.*["${f}"]`),
];

/** Properties of an error that carry the values it was about rather than what went wrong. */
const ERROR_VALUE_FIELDS = new Set([
  // PGlite attaches the statement's parameters (and node-postgres callers sometimes do).
  'params',
  'parameters',
  'queryOptions',
  // PostgreSQL: `Key (key_hash)=(…) already exists`, and the failing parameter's context.
  'detail',
  'where',
  'internalQuery',
  // body-parser keeps the raw request body on a parse failure.
  'body',
  'rawBody',
  'config',
  'request',
  'response',
  // Nodemailer: the envelope and the recipients a server accepted or refused.
  'envelope',
  'accepted',
  'rejected',
  'rejectedErrors',
  'pending',
]);

const EMAIL_ADDRESS = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g;

/**
 * An e-mail address as a log may show it: the domain, which tells which mail system was involved,
 * without the person (`[redacted]@example.com`). Logs hold no recipient's address (docs/security.md).
 */
export function redactEmail(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '[redacted]' : `[redacted]${address.slice(at)}`;
}

/** Text with every e-mail address in it redacted (an SMTP server's refusal quotes the recipient). */
function withoutEmailAddresses(text: string): string {
  return text.includes('@') ? text.replace(EMAIL_ADDRESS, (_address, domain: string) => `[redacted]@${domain}`) : text;
}

/** An error from PostgreSQL (PGlite or a server): it has a five-character SQLSTATE and a severity. */
function isDatabaseError(err: Record<string, unknown>): boolean {
  return typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) && typeof err.severity === 'string';
}

/**
 * PostgreSQL quotes the offending value at the end of some messages
 * (`invalid input syntax for type uuid: "…"`): the value goes, the reason stays.
 */
function withoutQuotedValue(message: string): string {
  return message.replace(/: ".*"$/s, ': "[redacted]"').replace(/\b(Key \([^)]*\))=\(.*\)/s, '$1=([redacted])');
}

/**
 * The error serializer: type, message, stack, own properties and causes (each serialized the same
 * way, not folded into the message), minus everything that can carry a statement's parameters, a
 * request body, a value a database error quotes or an e-mail address. SQL text stays (it holds
 * placeholders, never values), as do SQLSTATE codes and constraint names.
 */
export function serializeError(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > 5) return value;
  const err = value as Record<string, unknown>;
  const database = isDatabaseError(err);
  const mask = (text: string) => withoutEmailAddresses(database ? withoutQuotedValue(text) : text);
  const out: Record<string, unknown> = {};
  if (value instanceof Error) {
    out.type = value.constructor.name;
    out.message = mask(value.message);
    // The stack's first line repeats the message.
    const [first = '', ...frames] = (value.stack ?? '').split('\n');
    if (value.stack) out.stack = [mask(first), ...frames].join('\n');
  }
  for (const [name, field] of Object.entries(err)) {
    if (ERROR_VALUE_FIELDS.has(name) || name in out) continue;
    out[name] = name === 'errors' && Array.isArray(field) ? field.map((f) => serializeError(f, depth + 1)) : typeof field === 'string' ? withoutEmailAddresses(field) : field;
  }
  if (value instanceof Error && value.cause !== undefined) out.cause = serializeError(value.cause, depth + 1);
  return out;
}

/** JSON logs with secrets, bodies, document text and statement parameters redacted (see docs/security.md). */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'lore' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: (e: unknown) => serializeError(e), error: (e: unknown) => serializeError(e) },
  };
  return destination ? pino(options, destination) : pino(options);
}
