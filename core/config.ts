import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable Lore reads, parsed once. Nothing else in the codebase reads
 * `process.env`; components receive the parts of `Config` they need.
 */
const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const urlString = z.url({ protocol: /^https?$/ });

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, 'must be 2-16 lowercase letters or digits, starting with a letter')
    .default('lore'),
  PUBLIC_BASE_URL: urlString.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_ENABLED: boolFromEnv.default(true),
  MIGRATE_ON_START: boolFromEnv.optional(),
});

export type Env = Record<string, string | undefined>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `embedded` runs PGlite in DATA_DIR; `postgres` uses a `pg` pool on DATABASE_URL. */
  database: { kind: 'embedded' } | { kind: 'postgres'; url: string; poolSize: number };
  adminToken: string | undefined;
  apiKeyPrefix: string;
  publicBaseUrl: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  metricsEnabled: boolean;
  /** Migrations run at start-up in the embedded mode; a server is migrated with `npm run migrate`. */
  migrateOnStart: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment. Throws a ConfigError with a one-line message naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  // Empty strings mean "unset": shells and Helm templates often export VAR="".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = issue?.path.join('.') ?? 'environment';
    throw new ConfigError(`Invalid configuration: ${variable}: ${issue?.message ?? 'invalid value'}`);
  }
  const e = parsed.data;
  const database: Config['database'] = e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE }
    : { kind: 'embedded' };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    database,
    adminToken: e.ADMIN_TOKEN,
    apiKeyPrefix: e.API_KEY_PREFIX,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    metricsEnabled: e.METRICS_ENABLED,
    migrateOnStart: e.MIGRATE_ON_START ?? database.kind === 'embedded',
  };
}
