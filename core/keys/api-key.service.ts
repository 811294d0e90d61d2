import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from '../context.js';
import type { Database, Queryable } from '../db/database.js';
import { errors } from '../errors.js';
import { isUuid } from '../shared/ids.js';
import type { Scope } from '../shared/scope.js';
import {
  type ApiKeyRow,
  type AuthenticatedKeyRow,
  authenticateKeyHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
} from './api-key.repository.js';
import type { CreateApiKeyInput } from './api-key.schema.js';

/** 32 random bytes: 256 bits, 43 base64url characters. */
const KEY_RANDOM_BYTES = 32;

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A key as issued: the secret (shown once) and its stored record. */
export interface IssuedKey {
  key: string;
  row: ApiKeyRow;
}

export class ApiKeyService {
  private readonly keyPattern: RegExp;

  constructor(
    private readonly db: Database,
    private readonly prefix: string,
  ) {
    this.keyPattern = new RegExp(`^${prefix}_[A-Za-z0-9_-]{${Math.ceil((KEY_RANDOM_BYTES * 4) / 3)}}$`);
  }

  /**
   * Issues a key for the scope (a sub-tenant's key when the scope names one). Only its hash is
   * stored; the returned `key` cannot be retrieved again. `db` may be the caller's transaction.
   */
  async issue(db: Queryable, scope: Scope, params: { name: string; role: Role }): Promise<IssuedKey> {
    const key = `${this.prefix}_${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`;
    const row = await insertApiKey(db, scope, { ...params, keyHash: hashKey(key), keyHint: key.slice(-4) });
    return { key, row };
  }

  create(scope: Scope, input: CreateApiKeyInput): Promise<IssuedKey> {
    return this.issue(this.db, scope, { name: input.name, role: input.role });
  }

  list(scope: Scope): Promise<ApiKeyRow[]> {
    return listApiKeys(this.db, scope);
  }

  async revoke(scope: Scope, id: string): Promise<void> {
    if (!isUuid(id) || !(await revokeApiKey(this.db, scope, id))) throw errors.notFound('API key');
  }

  /** The stored digest of a string shaped like a key of this instance, or undefined for anything else. */
  digestOf(presented: string): string | undefined {
    return this.keyPattern.test(presented) ? hashKey(presented) : undefined;
  }

  /**
   * Resolves a presented key to its active record, or undefined. Malformed keys never reach the
   * database. The lookup is by SHA-256 digest, so response time does not depend on how much of a
   * guessed key matches a real one; the digest comparison itself is constant-time as well.
   */
  async authenticate(presented: string): Promise<AuthenticatedKeyRow | undefined> {
    if (!this.keyPattern.test(presented)) return undefined;
    const digest = hashKey(presented);
    const row = await authenticateKeyHash(this.db, digest);
    if (!row) return undefined;
    const same = timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(digest, 'hex'));
    return same ? row : undefined;
  }
}
