import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWTPayload, SignJWT, exportJWK, generateKeyPair } from 'jose';

/**
 * A stand-in for an external authorization server such as a Keycloak realm: it serves a JWKS at
 * `/protocol/openid-connect/certs` and signs RS256 access tokens shaped like Keycloak's.
 */
export interface ExternalIssuer {
  issuer: string;
  jwksUrl: string;
  /** A Keycloak-style client-credentials token (azp, scope, jti, 5 minutes) with extra claims. */
  sign(claims: JWTPayload, options?: { kid?: string; expiresIn?: number }): Promise<string>;
  close(): Promise<void>;
}

export async function startExternalIssuer(): Promise<ExternalIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'realm-key-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/realms/lore/protocol/openid-connect/certs') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/lore`;
  return {
    issuer: base,
    jwksUrl: `${base}/protocol/openid-connect/certs`,
    async sign(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ typ: 'Bearer', scope: 'profile email', ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: options.kid ?? jwk.kid })
        .setIssuer(base)
        .setIssuedAt(now)
        .setExpirationTime(now + (options.expiresIn ?? 300))
        .setJti(randomUUID())
        .sign(privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
