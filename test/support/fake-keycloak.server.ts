/**
 * A FAKE of Keycloak (26), for tests only: Keycloak itself (a JVM server) is not run here. It is a real
 * HTTP server on an ephemeral port, started in-process, holding one realm, that answers the part of the
 * Admin REST API `KeycloakIdentityProvider` (operator/keycloak.identity-provider.ts) calls through the
 * official `@keycloak/keycloak-admin-client`, with Keycloak's paths, methods, status codes and error
 * bodies, and issues RS256 access tokens through the client credentials grant, verifiable through the
 * realm's JWKS.
 *
 * Implemented:
 * - `POST /realms/{realm}/protocol/openid-connect/token`: `grant_type=client_credentials` only, client
 *   authentication by HTTP Basic or `client_id`/`client_secret` form parameters, for the admin client (in
 *   `adminRealm`) and the realm's confidential, service-account-enabled clients; Keycloak's 401
 *   `invalid_client`/`unauthorized_client` answers otherwise. A client's token carries `iss`, `sub` (its
 *   service-account user), `typ`, `azp`, `jti`, `iat`, `exp`, `scope` (its default client scopes, plus the
 *   optional ones it asks for with `scope`, that have `include.in.token.scope`), and what its own
 *   protocol mappers add to access tokens: `oidc-hardcoded-claim-mapper` (jsonType String, long, int,
 *   boolean, JSON) and `oidc-audience-mapper` (custom or client audience; `aud` is a string when single).
 * - `GET /realms/{realm}/protocol/openid-connect/certs` (the JWKS; one key).
 * - Admin REST under `/admin/realms/{realm}`, with the admin client's Bearer token (401 otherwise):
 *   `GET|POST /client-scopes`, `PUT /client-scopes/{id}`; `GET /clients[?clientId=]`, `POST /clients`,
 *   `PUT|DELETE /clients/{id}`; `GET|POST /clients/{id}/protocol-mappers/models`,
 *   `PUT|DELETE /clients/{id}/protocol-mappers/models/{mapperId}`; `GET /clients/{id}/default-client-scopes`,
 *   `PUT|DELETE /clients/{id}/default-client-scopes/{scopeId}`; `GET /clients/{id}/optional-client-scopes`,
 *   `DELETE /clients/{id}/optional-client-scopes/{scopeId}`; `GET|POST /clients/{id}/client-secret`.
 *   As in Keycloak: 201 with a `Location` on create; 204 on update and delete; 404 `{error}` for a missing
 *   client, scope or mapper; 409 `{errorMessage}` for a duplicate clientId, scope name or mapper name; a
 *   PUT changes only the fields it sends (attributes are merged); a client created without
 *   `defaultClientScopes`/`optionalClientScopes` gets the realm's default ones (and `service_account` when
 *   its service account is enabled); adding a scope the client already has (as default or optional) or of
 *   another protocol is silently a no-op.
 * - Handles to change the realm behind the API's back (drift) and a record of every request.
 *
 * Not implemented: other realms, users, roles and admin permissions (only the admin client's own tokens
 * are accepted on admin endpoints; any other token gets 401 where Keycloak would answer 403), other grant
 * types, refresh and ID tokens, token introspection and revocation, the realm client scopes' own mappers
 * (the built-in scopes such as `profile` or `basic` add no claims here), mapper types other than the two
 * above, nested claim names (`a.b` is a claim named "a.b"), lightweight access tokens, client policies,
 * secret rotation, fine-grained permissions and persistence. Anything outside the endpoints above is a
 * 404 naming the fake.
 */
import { once } from 'node:events';
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWTPayload, SignJWT, exportJWK, generateKeyPair } from 'jose';

export interface FakeKeycloakOptions {
  /** The realm holding the clients (default `lore`). */
  realm?: string;
  /** The realm the admin client lives in (default: `realm`). */
  adminRealm?: string;
  adminClientId?: string;
  /** Default: random. */
  adminClientSecret?: string;
  /** Lifetime of the admin client's tokens (default 300 s). */
  adminTokenLifetimeSeconds?: number;
  /** Lifetime of the realm clients' tokens (default 300 s, Keycloak's default). */
  tokenLifetimeSeconds?: number;
}

export interface FakeKeycloakProtocolMapper {
  id: string;
  name: string;
  protocol: string;
  protocolMapper: string;
  config: Record<string, string>;
}

export interface FakeKeycloakClientScope {
  id: string;
  name: string;
  protocol: string;
  description?: string;
  attributes: Record<string, string>;
}

/** A client as the realm holds it; scopes by name. */
export interface FakeKeycloakClient {
  id: string;
  clientId: string;
  name?: string;
  enabled: boolean;
  protocol: string;
  publicClient: boolean;
  bearerOnly: boolean;
  serviceAccountsEnabled: boolean;
  standardFlowEnabled: boolean;
  implicitFlowEnabled: boolean;
  directAccessGrantsEnabled: boolean;
  clientAuthenticatorType: string;
  attributes: Record<string, string>;
  secret: string | null;
  protocolMappers: FakeKeycloakProtocolMapper[];
  defaultClientScopes: string[];
  optionalClientScopes: string[];
}

type ClientSettings = Omit<FakeKeycloakClient, 'id' | 'clientId' | 'attributes' | 'protocolMappers' | 'defaultClientScopes' | 'optionalClientScopes'>;

/** A change made behind the Admin API's back, as another admin (or a restore) would make it. */
export interface FakeKeycloakTamper {
  /** Client settings to overwrite; `attributes` are merged, a `null` value removes one. */
  client?: Partial<ClientSettings> & { attributes?: Record<string, string | null> };
  /** Config entries to overwrite, by mapper name. */
  mapperConfig?: Record<string, Record<string, string>>;
  addMappers?: Omit<FakeKeycloakProtocolMapper, 'id' | 'protocol'>[];
  removeMappers?: string[];
  /** Realm client scopes (by name) to attach as default or optional, or to detach. */
  addDefaultScopes?: string[];
  addOptionalScopes?: string[];
  removeScopes?: string[];
}

export interface FakeKeycloakRequest {
  method: string;
  /** The path as sent, with its query string. */
  path: string;
}

export interface FakeKeycloak {
  /** `http://127.0.0.1:<port>`: Keycloak's base URL. */
  url: string;
  realm: string;
  adminRealm: string;
  /** `${url}/realms/${realm}`: the `iss` of the realm's tokens. */
  issuer: string;
  jwksUrl: string;
  tokenUrl: string;
  adminClientId: string;
  adminClientSecret: string;
  /** Every request received, in order (token and JWKS requests included). */
  requests: FakeKeycloakRequest[];
  /** The admin requests that are not GETs (the ones that may change something). */
  writes(): FakeKeycloakRequest[];
  resetRequests(): void;
  /** A copy of the realm's clients. */
  clients(): FakeKeycloakClient[];
  /** A copy of the realm's client scopes. */
  clientScopes(): FakeKeycloakClientScope[];
  /** Deletes a client outside the Admin API (throws if there is none). */
  deleteClientOutside(clientId: string): void;
  /** Changes a client outside the Admin API (throws if it, a mapper or a scope named does not exist). */
  tamperClient(clientId: string, patch: FakeKeycloakTamper): void;
  /** Invalidates every admin token issued so far, as an expiry or a restart would: the next admin call gets 401. */
  revokeAdminTokens(): void;
  close(): Promise<void>;
}

/** Keycloak's answer to a failed request: a status and its JSON error body. */
class FakeKeycloakError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, string>,
  ) {
    super(Object.values(body).join(': '));
  }
}

// Keycloak's error bodies: `ErrorResponse` ({errorMessage}) for validation and duplicates, the error
// handler's ({error}) for JAX-RS exceptions such as a missing resource.
const notFound = (message: string) => new FakeKeycloakError(404, { error: message });
const exists = (message: string) => new FakeKeycloakError(409, { errorMessage: message });
const badRequest = (message: string) => new FakeKeycloakError(400, { errorMessage: message });
const oauthError = (status: number, error: string, description: string) => new FakeKeycloakError(status, { error, error_description: description });
const noRoute = () =>
  new FakeKeycloakError(404, { error: 'HTTP 404 Not Found', error_description: 'no such endpoint in the fake Keycloak (test/support/fake-keycloak.server.ts)' });
const BAD_CLIENT_CREDENTIALS = 'Invalid client or Invalid client credentials';

const OIDC = 'openid-connect';
const SCOPE_NAME = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** Keycloak 26's built-in client scopes: [name, include.in.token.scope, realm default (true) or optional (false)]. */
const BUILT_IN_SCOPES: [string, boolean, boolean | null][] = [
  ['acr', false, true],
  ['basic', false, true],
  ['email', true, true],
  ['profile', true, true],
  ['roles', false, true],
  ['web-origins', false, true],
  ['address', true, false],
  ['phone', true, false],
  ['offline_access', true, false],
  ['microprofile-jwt', true, false],
  ['organization', true, false],
  ['service_account', false, null],
];
const MAPPER_TYPES = ['oidc-hardcoded-claim-mapper', 'oidc-audience-mapper'];

interface StoredClient extends Omit<FakeKeycloakClient, 'defaultClientScopes' | 'optionalClientScopes'> {
  serviceAccountUserId: string;
  defaultScopeIds: string[];
  optionalScopeIds: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw badRequest(`${where} must be an object`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

const newSecret = () => randomBytes(24).toString('base64url');

class Realm {
  readonly scopes = new Map<string, FakeKeycloakClientScope>();
  readonly clients = new Map<string, StoredClient>();
  private readonly realmDefaults: FakeKeycloakClientScope[] = [];
  private readonly realmOptionals: FakeKeycloakClientScope[] = [];

  constructor() {
    for (const [name, inToken, isDefault] of BUILT_IN_SCOPES) {
      const scope = { id: randomUUID(), name, protocol: OIDC, attributes: { 'include.in.token.scope': String(inToken) } };
      this.scopes.set(scope.id, scope);
      if (isDefault === true) this.realmDefaults.push(scope);
      if (isDefault === false) this.realmOptionals.push(scope);
    }
  }

  scopeByName(name: string): FakeKeycloakClientScope | undefined {
    return [...this.scopes.values()].find((s) => s.name === name);
  }

  clientByClientId(clientId: string): StoredClient | undefined {
    return [...this.clients.values()].find((c) => c.clientId === clientId);
  }

  /** Keycloak attaches a scope only once (default or optional) and only of the client's protocol. */
  attach(client: StoredClient, scope: FakeKeycloakClientScope, asDefault: boolean): void {
    if (client.defaultScopeIds.includes(scope.id) || client.optionalScopeIds.includes(scope.id)) return;
    if (scope.protocol !== client.protocol) return;
    (asDefault ? client.defaultScopeIds : client.optionalScopeIds).push(scope.id);
  }

  detach(client: StoredClient, scopeId: string): void {
    client.defaultScopeIds = client.defaultScopeIds.filter((id) => id !== scopeId);
    client.optionalScopeIds = client.optionalScopeIds.filter((id) => id !== scopeId);
  }

  /** Keycloak's service-account switch: the `service_account` scope follows it. */
  setServiceAccount(client: StoredClient, enabled: boolean): void {
    client.serviceAccountsEnabled = enabled;
    const scope = this.scopeByName('service_account');
    if (!scope) return;
    if (enabled) this.attach(client, scope, true);
    else this.detach(client, scope.id);
  }

  snapshot(client: StoredClient): FakeKeycloakClient {
    const { serviceAccountUserId: _user, defaultScopeIds, optionalScopeIds, ...rest } = client;
    const names = (ids: string[]) => ids.map((id) => this.scopes.get(id)?.name ?? id);
    return structuredClone({ ...rest, defaultClientScopes: names(defaultScopeIds), optionalClientScopes: names(optionalScopeIds) });
  }

  /** A client as the Admin API shows it to a `manage-clients` admin. */
  representation(client: StoredClient): Record<string, unknown> {
    const { secret, protocolMappers, ...rest } = this.snapshot(client);
    return {
      ...rest,
      ...(secret === null ? {} : { secret }),
      ...(protocolMappers.length ? { protocolMappers } : {}),
      fullScopeAllowed: true,
      access: { view: true, configure: true, manage: true },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Admin REST
  // -------------------------------------------------------------------------------------------

  route(method: string, path: string[], query: URLSearchParams, body: unknown): { status: number; body?: unknown; location?: string } {
    const [collection, id, sub, subId, extra] = path;
    if (collection === 'client-scopes') {
      if (id === undefined && method === 'GET') return { status: 200, body: [...this.scopes.values()] };
      if (id === undefined && method === 'POST') return this.createScope(body);
      if (id !== undefined && sub === undefined && method === 'PUT') return this.updateScope(id, body);
      throw noRoute();
    }
    if (collection !== 'clients') throw noRoute();
    if (id === undefined) {
      if (method === 'GET') return { status: 200, body: this.listClients(query) };
      if (method === 'POST') return this.createClient(body);
      throw noRoute();
    }
    const client = this.clients.get(id);
    if (!client) throw notFound('Could not find client');
    if (sub === undefined) {
      if (method === 'PUT') return this.updateClient(client, body);
      if (method === 'DELETE') {
        this.clients.delete(id);
        return { status: 204 };
      }
      throw noRoute();
    }
    if (sub === 'protocol-mappers' && subId === 'models') return this.mappers(client, method, extra, body, path.length);
    if ((sub === 'default-client-scopes' || sub === 'optional-client-scopes') && path.length <= 4) {
      const asDefault = sub === 'default-client-scopes';
      if (subId === undefined) {
        if (method !== 'GET') throw noRoute();
        const ids = asDefault ? client.defaultScopeIds : client.optionalScopeIds;
        return { status: 200, body: ids.map((scopeId) => ({ id: scopeId, name: this.scopes.get(scopeId)?.name })) };
      }
      const scope = this.scopes.get(subId);
      if (method === 'PUT' && asDefault) {
        if (!scope) throw notFound('Client scope not found');
        this.attach(client, scope, true);
        return { status: 204 };
      }
      if (method === 'DELETE') {
        if (!scope) throw notFound('Client scope not found');
        this.detach(client, scope.id);
        return { status: 204 };
      }
      throw noRoute();
    }
    if (sub === 'client-secret' && subId === undefined) {
      if (method === 'GET') return { status: 200, body: { type: 'secret', ...(client.secret === null ? {} : { value: client.secret }) } };
      if (method === 'POST') {
        client.secret = newSecret();
        return { status: 200, body: { type: 'secret', value: client.secret } };
      }
    }
    throw noRoute();
  }

  private listClients(query: URLSearchParams): unknown[] {
    for (const key of query.keys()) {
      if (key !== 'clientId') throw badRequest(`query parameter "${key}" is not supported by the fake Keycloak`);
    }
    const clientId = query.get('clientId');
    const all = [...this.clients.values()];
    // Keycloak: an exact match on clientId (unless `search=true`), all clients without it.
    return (clientId ? all.filter((c) => c.clientId === clientId) : all).map((c) => this.representation(c));
  }

  private createScope(body: unknown): { status: number; location: string } {
    if (!isObject(body) || typeof body.name !== 'string') throw badRequest('Unexpected name "null" for ClientScope');
    const name = body.name;
    if (!SCOPE_NAME.test(name)) throw badRequest(`Unexpected name "${name}" for ClientScope`);
    const protocol = this.protocol(body.protocol);
    if (this.scopeByName(name)) throw exists(`Client Scope ${name} already exists`);
    const id = randomUUID();
    const description = typeof body.description === 'string' ? body.description : undefined;
    this.scopes.set(id, { id, name, protocol, ...(description === undefined ? {} : { description }), attributes: stringMap(body.attributes, 'attributes') });
    return { status: 201, location: `client-scopes/${id}` };
  }

  private updateScope(id: string, body: unknown): { status: number } {
    const scope = this.scopes.get(id);
    if (!scope) throw notFound('Could not find client scope');
    if (!isObject(body) || typeof body.name !== 'string' || !SCOPE_NAME.test(body.name)) {
      throw badRequest(`Unexpected name "${isObject(body) ? String(body.name) : 'null'}" for ClientScope`);
    }
    const other = this.scopeByName(body.name);
    if (other && other.id !== id) throw exists(`Client Scope ${body.name} already exists`);
    scope.name = body.name;
    if (body.protocol !== undefined && body.protocol !== null) scope.protocol = this.protocol(body.protocol);
    if (typeof body.description === 'string') scope.description = body.description;
    Object.assign(scope.attributes, stringMap(body.attributes, 'attributes'));
    return { status: 204 };
  }

  private protocol(value: unknown): string {
    if (value === undefined || value === null) return OIDC;
    if (value !== OIDC && value !== 'saml') throw badRequest(`Unexpected protocol ${JSON.stringify(value)}`);
    return value;
  }

  private createClient(body: unknown): { status: number; location: string } {
    if (!isObject(body) || typeof body.clientId !== 'string' || body.clientId.trim() === '') throw badRequest('Client id is required');
    const clientId = body.clientId;
    if (this.clientByClientId(clientId)) throw exists(`Client ${clientId} already exists`);
    const client: StoredClient = {
      id: randomUUID(),
      clientId,
      enabled: true,
      protocol: this.protocol(body.protocol),
      publicClient: false,
      bearerOnly: false,
      serviceAccountsEnabled: false,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      clientAuthenticatorType: 'client-secret',
      attributes: {},
      secret: null,
      protocolMappers: [],
      serviceAccountUserId: randomUUID(),
      defaultScopeIds: [],
      optionalScopeIds: [],
    };
    this.applySettings(client, body);
    // As Keycloak: scopes named in the representation replace the realm's default ones.
    if (Array.isArray(body.defaultClientScopes) || Array.isArray(body.optionalClientScopes)) {
      for (const [names, asDefault] of [[body.defaultClientScopes, true], [body.optionalClientScopes, false]] as const) {
        for (const name of Array.isArray(names) ? names : []) {
          const scope = typeof name === 'string' ? this.scopeByName(name) : undefined;
          if (scope) this.attach(client, scope, asDefault);
        }
      }
    } else {
      for (const scope of this.realmDefaults) this.attach(client, scope, true);
      for (const scope of this.realmOptionals) this.attach(client, scope, false);
    }
    if (client.serviceAccountsEnabled) this.setServiceAccount(client, true);
    if (Array.isArray(body.protocolMappers)) {
      for (const mapper of body.protocolMappers) this.addMapper(client, mapper);
    }
    this.clients.set(client.id, client);
    return { status: 201, location: `clients/${client.id}` };
  }

  private updateClient(client: StoredClient, body: unknown): { status: number } {
    if (!isObject(body)) throw badRequest('a client representation is expected');
    if (typeof body.clientId === 'string' && body.clientId !== client.clientId) {
      if (this.clientByClientId(body.clientId)) throw exists('Client already exists');
      client.clientId = body.clientId;
    }
    if (typeof body.protocol === 'string') client.protocol = this.protocol(body.protocol);
    this.applySettings(client, body);
    // As Keycloak's updateClientProtocolMappers: mappers sent replace those of the same protocol and name, the rest go.
    if (Array.isArray(body.protocolMappers)) {
      const sent = body.protocolMappers.filter(isObject);
      client.protocolMappers = client.protocolMappers.filter((m) => sent.some((s) => s.name === m.name && (s.protocol ?? OIDC) === m.protocol));
      for (const mapper of sent) {
        const existing = client.protocolMappers.find((m) => m.name === mapper.name);
        if (existing) Object.assign(existing, this.mapperFrom(mapper), { id: existing.id });
        else this.addMapper(client, mapper);
      }
    }
    return { status: 204 };
  }

  /** Keycloak's partial update: fields absent or null are left as they are; attributes are merged. */
  private applySettings(client: StoredClient, body: Record<string, unknown>): void {
    if (typeof body.name === 'string') client.name = body.name;
    for (const key of ['enabled', 'publicClient', 'bearerOnly', 'standardFlowEnabled', 'implicitFlowEnabled', 'directAccessGrantsEnabled'] as const) {
      if (typeof body[key] === 'boolean') client[key] = body[key];
    }
    if (typeof body.clientAuthenticatorType === 'string') client.clientAuthenticatorType = body.clientAuthenticatorType;
    Object.assign(client.attributes, stringMap(body.attributes, 'attributes'));
    if (typeof body.serviceAccountsEnabled === 'boolean' && body.serviceAccountsEnabled !== client.serviceAccountsEnabled) {
      this.setServiceAccount(client, body.serviceAccountsEnabled);
    }
    if (client.publicClient || client.bearerOnly) client.secret = null;
    else if (typeof body.secret === 'string') client.secret = body.secret;
    else client.secret ??= newSecret();
  }

  private mapperFrom(body: unknown): Omit<FakeKeycloakProtocolMapper, 'id'> {
    if (!isObject(body) || typeof body.name !== 'string' || body.name === '') throw badRequest('a protocol mapper needs a name');
    const protocolMapper = String(body.protocolMapper);
    if (!MAPPER_TYPES.includes(protocolMapper)) {
      throw badRequest(`protocol mapper type "${protocolMapper}" is not supported by the fake Keycloak (only ${MAPPER_TYPES.join(', ')})`);
    }
    const config = stringMap(body.config, 'config');
    if (protocolMapper === 'oidc-audience-mapper' && !config['included.custom.audience'] && !config['included.client.audience']) {
      throw oauthError(400, 'Either Included Client Audience or Included Custom Audience must be specified', 'Invalid protocol mapper configuration');
    }
    return { name: body.name, protocol: typeof body.protocol === 'string' ? body.protocol : OIDC, protocolMapper, config };
  }

  private addMapper(client: StoredClient, body: unknown): string {
    const mapper = this.mapperFrom(body);
    if (client.protocolMappers.some((m) => m.name === mapper.name && m.protocol === mapper.protocol)) {
      throw exists('Protocol mapper exists with same name');
    }
    const id = randomUUID();
    client.protocolMappers.push({ id, ...mapper });
    return id;
  }

  private mappers(client: StoredClient, method: string, mapperId: string | undefined, body: unknown, depth: number) {
    if (depth > 5) throw noRoute();
    if (mapperId === undefined) {
      if (method === 'GET') return { status: 200, body: client.protocolMappers };
      if (method === 'POST') return { status: 201, location: `clients/${client.id}/protocol-mappers/models/${this.addMapper(client, body)}` };
      throw noRoute();
    }
    const existing = client.protocolMappers.find((m) => m.id === mapperId);
    if (!existing) throw notFound('Model not found');
    if (method === 'DELETE') {
      client.protocolMappers = client.protocolMappers.filter((m) => m.id !== mapperId);
      return { status: 204 };
    }
    if (method !== 'PUT') throw noRoute();
    // Keycloak updates the mapper the representation's id names; the fake insists it is the one in the path.
    if (!isObject(body) || body.id !== mapperId) throw badRequest('the mapper representation must carry the id of the mapper in the path (fake Keycloak)');
    const mapper = this.mapperFrom(body);
    if (client.protocolMappers.some((m) => m.id !== mapperId && m.name === mapper.name && m.protocol === mapper.protocol)) {
      throw new FakeKeycloakError(409, { error: 'conflict', error_description: 'Protocol mapper exists with same name' });
    }
    Object.assign(existing, mapper);
    return { status: 204 };
  }

  // -------------------------------------------------------------------------------------------
  // Tokens of the realm's clients
  // -------------------------------------------------------------------------------------------

  /** The claims of a client-credentials access token, or Keycloak's refusal. */
  claims(clientId: string, secret: string | undefined, requestedScope: string | null): JWTPayload {
    const client = this.clientByClientId(clientId);
    if (!client) throw oauthError(401, 'invalid_client', BAD_CLIENT_CREDENTIALS);
    if (!client.enabled) throw oauthError(401, 'invalid_client', BAD_CLIENT_CREDENTIALS);
    if (client.publicClient) throw oauthError(401, 'unauthorized_client', 'Public client not allowed to retrieve service account');
    if (client.clientAuthenticatorType !== 'client-secret' || client.secret === null || secret !== client.secret) {
      throw oauthError(401, 'unauthorized_client', BAD_CLIENT_CREDENTIALS);
    }
    if (!client.serviceAccountsEnabled) throw oauthError(401, 'unauthorized_client', 'Client not enabled to retrieve service account');

    const names = (ids: string[]) => ids.map((id) => this.scopes.get(id)).filter((s) => s !== undefined);
    const granted = names(client.defaultScopeIds);
    const requested = (requestedScope ?? '').split(' ').filter(Boolean);
    const optional = names(client.optionalScopeIds);
    const unknown = requested.filter((n) => n !== 'openid' && !granted.some((s) => s.name === n) && !optional.some((s) => s.name === n));
    if (unknown.length) throw oauthError(400, 'invalid_scope', `Invalid scopes: ${requestedScope}`);
    granted.push(...optional.filter((s) => requested.includes(s.name)));
    const scope = [
      ...(requested.includes('openid') ? ['openid'] : []),
      ...granted.filter((s) => s.attributes['include.in.token.scope'] === 'true').map((s) => s.name),
    ].join(' ');

    const claims: JWTPayload = { sub: client.serviceAccountUserId, typ: 'Bearer', azp: client.clientId, scope };
    const audiences: string[] = [];
    for (const { protocolMapper, config } of client.protocolMappers) {
      if (config['access.token.claim'] !== 'true') continue;
      if (protocolMapper === 'oidc-audience-mapper') {
        const audience = config['included.custom.audience'] || config['included.client.audience'];
        if (audience && !audiences.includes(audience)) audiences.push(audience);
      } else if (config['claim.name']) {
        claims[config['claim.name']] = typedClaim(config['claim.value'] ?? '', config['jsonType.label']);
      }
    }
    if (audiences.length) claims.aud = audiences.length === 1 ? audiences[0] : audiences;
    return claims;
  }
}

function typedClaim(value: string, type: string | undefined): unknown {
  if (type === 'long' || type === 'int') return Number(value);
  if (type === 'boolean') return value === 'true';
  if (type === 'JSON') return JSON.parse(value) as unknown;
  return value;
}

/** `Basic base64(urlencoded(id):urlencoded(secret))` (RFC 6749 §2.3.1), else the form parameters. */
function clientCredentials(request: IncomingMessage, form: URLSearchParams): { clientId: string | null; secret: string | undefined } {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const unescape = (s: string) => decodeURIComponent(s.replaceAll('+', ' '));
    if (colon > 0) return { clientId: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
  }
  return { clientId: form.get('client_id'), secret: form.get('client_secret') ?? undefined };
}

// ---------------------------------------------------------------------------------------------
// The HTTP server
// ---------------------------------------------------------------------------------------------

/** Starts the FAKE Keycloak on an ephemeral port of 127.0.0.1. Logs nothing. */
export async function startFakeKeycloak(options: FakeKeycloakOptions = {}): Promise<FakeKeycloak> {
  const realmName = options.realm ?? 'lore';
  const adminRealm = options.adminRealm ?? realmName;
  const adminClientId = options.adminClientId ?? 'lore-operator';
  const adminClientSecret = options.adminClientSecret ?? newSecret();
  const adminLifetime = options.adminTokenLifetimeSeconds ?? 300;
  const lifetime = options.tokenLifetimeSeconds ?? 300;
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  const requests: FakeKeycloakRequest[] = [];
  /** Admin tokens still valid, with their expiry (seconds). */
  const adminTokens = new Map<string, number>();
  let url = '';
  const realm = new Realm();
  const issuerOf = (name: string) => `${url}/realms/${name}`;

  const sign = (claims: JWTPayload, issuer: string, seconds: number) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: jwk.kid })
      .setIssuer(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + seconds)
      .setJti(randomUUID())
      .sign(privateKey);
  };

  const token = async (request: IncomingMessage, name: string, text: string): Promise<unknown> => {
    if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      throw oauthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
    }
    const form = new URLSearchParams(text);
    if (form.get('grant_type') !== 'client_credentials') throw oauthError(400, 'unsupported_grant_type', 'Unsupported grant_type');
    const { clientId, secret } = clientCredentials(request, form);
    if (!clientId) throw oauthError(401, 'invalid_client', 'Missing client_id parameter');
    let accessToken: string;
    let expiresIn: number;
    let scope: unknown;
    if (name === adminRealm && clientId === adminClientId) {
      if (secret !== adminClientSecret) throw oauthError(401, 'unauthorized_client', BAD_CLIENT_CREDENTIALS);
      scope = 'profile email';
      accessToken = await sign({ sub: randomUUID(), typ: 'Bearer', azp: adminClientId, scope }, issuerOf(adminRealm), adminLifetime);
      adminTokens.set(accessToken, Math.floor(Date.now() / 1000) + adminLifetime);
      expiresIn = adminLifetime;
    } else if (name === realmName) {
      const claims = realm.claims(clientId, secret, form.get('scope'));
      scope = claims.scope;
      accessToken = await sign(claims, issuerOf(realmName), lifetime);
      expiresIn = lifetime;
    } else {
      throw oauthError(401, 'invalid_client', BAD_CLIENT_CREDENTIALS);
    }
    return { access_token: accessToken, expires_in: expiresIn, refresh_expires_in: 0, token_type: 'Bearer', 'not-before-policy': 0, scope };
  };

  const authorized = (request: IncomingMessage): boolean => {
    const header = request.headers.authorization;
    const expires = header?.startsWith('Bearer ') ? adminTokens.get(header.slice('Bearer '.length)) : undefined;
    return expires !== undefined && expires > Date.now() / 1000;
  };

  const send = (response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    if (body === undefined) {
      response.writeHead(status, headers).end();
      return;
    }
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

  const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const method = request.method ?? 'GET';
    const rawPath = request.url ?? '/';
    requests.push({ method, path: rawPath });
    const parsed = new URL(rawPath, url);
    try {
      let segments: string[];
      try {
        segments = parsed.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      } catch {
        throw noRoute();
      }
      const [first, second, name, ...rest] = segments;
      if (first === 'realms' && second !== undefined) {
        // `/realms/{realm}/protocol/openid-connect/{token|certs}`
        if (name !== 'protocol' || rest[0] !== 'openid-connect' || rest.length !== 2) throw noRoute();
        if (second !== realmName && second !== adminRealm) throw notFound('Realm does not exist');
        if (rest[1] === 'token' && method === 'POST') return send(response, 200, await token(request, second, text));
        if (rest[1] === 'certs' && method === 'GET' && second === realmName) return send(response, 200, { keys: [jwk] });
        throw noRoute();
      }
      if (first === 'admin' && second === 'realms' && name !== undefined) {
        if (!authorized(request)) throw new FakeKeycloakError(401, { error: 'HTTP 401 Unauthorized' });
        if (name !== realmName) throw notFound('Realm not found.');
        let body: unknown;
        if (text.trim() && method !== 'GET') {
          try {
            body = JSON.parse(text);
          } catch {
            throw oauthError(400, 'invalid_request', 'Cannot parse the JSON');
          }
        }
        const answer = realm.route(method, rest, parsed.searchParams, body);
        const location = 'location' in answer && answer.location ? { location: `${url}/admin/realms/${realmName}/${answer.location}` } : undefined;
        return send(response, answer.status, answer.body, location);
      }
      throw noRoute();
    } catch (error) {
      if (error instanceof FakeKeycloakError) return send(response, error.status, error.body);
      return send(response, 500, { error: 'unknown_error', error_description: error instanceof Error ? error.message : String(error) });
    }
  };

  const server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const stored = (clientId: string): StoredClient => {
    const client = realm.clientByClientId(clientId);
    if (!client) throw new Error(`fake Keycloak: no client "${clientId}"`);
    return client;
  };
  const scopeNamed = (name: string): FakeKeycloakClientScope => {
    const scope = realm.scopeByName(name);
    if (!scope) throw new Error(`fake Keycloak: no client scope "${name}"`);
    return scope;
  };

  return {
    url,
    realm: realmName,
    adminRealm,
    issuer: issuerOf(realmName),
    jwksUrl: `${issuerOf(realmName)}/protocol/openid-connect/certs`,
    tokenUrl: `${issuerOf(realmName)}/protocol/openid-connect/token`,
    adminClientId,
    adminClientSecret,
    requests,
    writes: () => requests.filter((r) => r.method !== 'GET' && r.path.startsWith('/admin/')),
    resetRequests: () => {
      requests.length = 0;
    },
    clients: () => [...realm.clients.values()].map((c) => realm.snapshot(c)),
    clientScopes: () => structuredClone([...realm.scopes.values()]),
    deleteClientOutside: (clientId) => {
      realm.clients.delete(stored(clientId).id);
    },
    tamperClient: (clientId, patch) => {
      const client = stored(clientId);
      const { attributes, serviceAccountsEnabled, ...settings } = patch.client ?? {};
      Object.assign(client, settings);
      if (serviceAccountsEnabled !== undefined) realm.setServiceAccount(client, serviceAccountsEnabled);
      for (const [key, value] of Object.entries(attributes ?? {})) {
        if (value === null) delete client.attributes[key];
        else client.attributes[key] = value;
      }
      for (const [name, config] of Object.entries(patch.mapperConfig ?? {})) {
        const mapper = client.protocolMappers.find((m) => m.name === name);
        if (!mapper) throw new Error(`fake Keycloak: client "${clientId}" has no mapper "${name}"`);
        Object.assign(mapper.config, config);
      }
      for (const mapper of patch.addMappers ?? []) client.protocolMappers.push({ id: randomUUID(), protocol: OIDC, ...structuredClone(mapper) });
      client.protocolMappers = client.protocolMappers.filter((m) => !patch.removeMappers?.includes(m.name));
      for (const name of patch.removeScopes ?? []) realm.detach(client, scopeNamed(name).id);
      for (const name of patch.addDefaultScopes ?? []) realm.attach(client, scopeNamed(name), true);
      for (const name of patch.addOptionalScopes ?? []) realm.attach(client, scopeNamed(name), false);
    },
    revokeAdminTokens: () => adminTokens.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
