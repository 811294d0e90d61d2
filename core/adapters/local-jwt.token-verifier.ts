import { createLocalJWKSet, jwtVerify } from 'jose';
import type { SigningKeys } from '../oauth/signing-keys.js';
import type { AccessTokenClaims, ExpectedToken, TokenVerifier } from '../ports/token-verifier.js';
import { accessTokenClaims, verificationFailure } from './jwt-access-token.js';

/** Verifies the tokens of Lore's built-in issuer against its own signing key. */
export class LocalJwtTokenVerifier implements TokenVerifier {
  readonly kind = 'local';
  readonly externalIssuer = undefined;
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;

  constructor(private readonly keys: SigningKeys) {}

  async verify(token: string, expected: ExpectedToken): Promise<AccessTokenClaims> {
    const key = await this.keys.current();
    this.keySet ??= createLocalJWKSet(await this.keys.jwks());
    try {
      const { payload } = await jwtVerify(token, this.keySet, {
        issuer: expected.issuer,
        audience: expected.audiences,
        algorithms: [key.alg],
        typ: 'at+jwt',
        currentDate: expected.now,
        requiredClaims: ['exp', 'iat', 'jti', 'client_id', 'tenant_id', 'scope'],
      });
      return accessTokenClaims(payload);
    } catch (err) {
      throw verificationFailure(err);
    }
  }
}
