import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs/promises';
import { type JWK, calculateJwkThumbprint } from 'jose';
import type { Database } from '../db/database.js';
import { ensureInstanceSecret } from '../instance/instance-secret.repository.js';

export type SigningAlgorithm = 'ES256' | 'ES384' | 'RS256' | 'EdDSA';

export interface SigningKey {
  /** The JWK thumbprint (RFC 7638) of the public key: the `kid` of tokens and of the JWKS entry. */
  kid: string;
  alg: SigningAlgorithm;
  privateKey: KeyObject;
  publicJwk: JWK;
}

const INSTANCE_SECRET_NAME = 'oauth-signing-key';

function algorithmOf(key: KeyObject): SigningAlgorithm {
  const details = key.asymmetricKeyDetails;
  switch (key.asymmetricKeyType) {
    case 'ec':
      if (details?.namedCurve === 'prime256v1') return 'ES256';
      if (details?.namedCurve === 'secp384r1') return 'ES384';
      break;
    case 'rsa':
      if ((details?.modulusLength ?? 0) >= 2048) return 'RS256';
      break;
    case 'ed25519':
      return 'EdDSA';
  }
  throw new Error('the OAuth signing key must be an EC P-256 or P-384, RSA (at least 2048 bits) or Ed25519 private key');
}

/**
 * The asymmetric key that signs access tokens. Either a PEM private key file (OAUTH_SIGNING_KEY_FILE),
 * or an EC P-256 key generated on first use and kept in the database's `instance_secrets`: inside
 * DATA_DIR for the embedded topology, and shared by every API replica on a PostgreSQL server.
 */
export class SigningKeys {
  private loaded: Promise<SigningKey> | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: { file?: string | undefined },
  ) {}

  current(): Promise<SigningKey> {
    this.loaded ??= this.load().catch((err: unknown) => {
      this.loaded = undefined;
      throw err;
    });
    return this.loaded;
  }

  /** The public keys tokens may be signed with (RFC 7517 JWK Set). */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [(await this.current()).publicJwk] };
  }

  private async load(): Promise<SigningKey> {
    let privateKey: KeyObject;
    if (this.options.file) {
      const pem = await fs.readFile(this.options.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new Error(`OAUTH_SIGNING_KEY_FILE: cannot read ${this.options.file}: ${err.code ?? err.message}`);
      });
      try {
        privateKey = createPrivateKey(pem);
      } catch {
        throw new Error(`OAUTH_SIGNING_KEY_FILE: ${this.options.file} does not hold a PEM private key`);
      }
    } else {
      const candidate = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' });
      const der = await ensureInstanceSecret(this.db, INSTANCE_SECRET_NAME, candidate);
      privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    }
    const alg = algorithmOf(privateKey);
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(jwk);
    return { kid, alg, privateKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
  }
}
