import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { AccessTokenClaims, ExpectedToken, TokenVerifier } from '../ports/token-verifier.js';
import { accessTokenClaims, verificationFailure } from './jwt-access-token.js';

/**
 * Verifies tokens of an external authorization server (Keycloak in the cluster topology) through its
 * JWKS endpoint, e.g. `<realm>/protocol/openid-connect/certs`. The keys are fetched once and again
 * when a token names an unknown `kid` (key rotation). Tokens must carry Lore's claims: `tenant_id`,
 * optional `sub_tenant_id` and `scope` (Keycloak: hard-coded claim mappers on the client), and the
 * MCP resource as audience (an audience mapper).
 */
export class JwksTokenVerifier implements TokenVerifier {
  readonly kind = 'external';
  private readonly keySet: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    jwksUrl: string,
    readonly externalIssuer: string,
  ) {
    this.keySet = createRemoteJWKSet(new URL(jwksUrl));
  }

  async verify(token: string, expected: ExpectedToken): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.keySet, {
        issuer: this.externalIssuer,
        audience: expected.audiences,
        algorithms: ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'],
        currentDate: expected.now,
        requiredClaims: ['exp', 'jti'],
      });
      return accessTokenClaims(payload);
    } catch (err) {
      throw verificationFailure(err);
    }
  }
}
