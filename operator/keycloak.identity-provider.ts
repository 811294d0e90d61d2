import KeycloakAdminClient, { NetworkError } from '@keycloak/keycloak-admin-client';
import type ClientRepresentation from '@keycloak/keycloak-admin-client/lib/defs/clientRepresentation.js';
import type ClientScopeRepresentation from '@keycloak/keycloak-admin-client/lib/defs/clientScopeRepresentation.js';
import type ProtocolMapperRepresentation from '@keycloak/keycloak-admin-client/lib/defs/protocolMapperRepresentation.js';
import { decodeJwt } from 'jose';
import { OAUTH_SCOPES, type OAuthScope, isOAuthScope } from '../core/oauth/oauth.schema.js';
import type { IdentityProvider, McpClientCredentials, McpClientSpec } from './identity-provider.js';

export interface KeycloakIdentityProviderOptions {
  /** Keycloak's root URL, e.g. `https://sso.example.com` (no `/realms/...`). */
  baseUrl: string;
  /** The realm the MCP clients live in (the realm whose issuer and JWKS Lore trusts). */
  realm: string;
  adminClientId: string;
  adminClientSecret: string;
  /** The realm the admin client lives in (default: `realm`), e.g. `master`. */
  adminRealm?: string;
  /** Per-request timeout (default 10 s): a hung Keycloak must not stall a reconcile forever. */
  timeoutMs?: number;
}

/** Marks the clients the operator owns: it never rewrites or deletes a client without it. */
export const MANAGED_BY_ATTRIBUTE = 'lore.dev/managed-by';
export const MANAGED_BY_VALUE = 'lore-operator';
export const TENANT_ATTRIBUTE = 'lore.dev/tenant-id';

/** The protocol mappers the operator owns on a client are recognised by this name prefix. */
const MAPPER_PREFIX = 'lore ';
const TENANT_MAPPER = `${MAPPER_PREFIX}tenant_id`;
const SUB_TENANT_MAPPER = `${MAPPER_PREFIX}sub_tenant_id`;
const LORE_CLAIMS = ['tenant_id', 'sub_tenant_id'];
const OIDC = 'openid-connect';
/** Re-authenticate this long before the admin token expires, so no call races its expiry. */
const REFRESH_MARGIN_MS = 30_000;

/** A failed Keycloak call: the step and the HTTP status (undefined when there was no response). */
export class KeycloakAdminError extends Error {
  constructor(
    readonly step: string,
    readonly status: number | undefined,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Keycloak: ${step} failed: ${status === undefined ? 'no HTTP response' : `HTTP ${status}`} (${detail})`, options);
    this.name = 'KeycloakAdminError';
  }
}

function statusOf(err: unknown): number | undefined {
  return err instanceof NetworkError ? err.response.status : undefined;
}

/** Keycloak's own error text (`errorMessage`, or OAuth `error`/`error_description`): it never echoes credentials. */
function detailOf(err: unknown): string {
  if (!(err instanceof NetworkError)) return err instanceof Error ? err.message : String(err);
  const data: unknown = err.responseData;
  if (typeof data !== 'object' || data === null) return err.response.statusText || 'no details';
  const { errorMessage, error, error_description: description } = data as Record<string, unknown>;
  const text = [errorMessage, error, description].filter((v): v is string => typeof v === 'string').join(': ');
  return (text || 'no details').slice(0, 300);
}

interface WantedMapper {
  protocolMapper: string;
  config: Record<string, string>;
}

const sameConfig = (actual: Record<string, unknown> | undefined, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([key, value]) => actual?.[key] === value);

/**
 * The MCP clients in a Keycloak realm, kept through the Admin REST API (`@keycloak/keycloak-admin-client`).
 * Each tenant's client is confidential, service-account only (client credentials grant), with Lore's
 * claims as hard-coded claim mappers, the MCP resource as audience, and its `mcp:*` realm client scopes as
 * default scopes, so every token it gets carries exactly the scopes the spec grants.
 *
 * The admin client (in `adminRealm`) authenticates with the client credentials grant; its service account
 * needs the `realm-management` client role `manage-clients` of the MCP realm (it covers viewing and
 * managing clients, their protocol mappers, default scopes and secrets, and the realm's client scopes);
 * `view-clients`, `manage-realm` and the like are not needed. When the admin client lives in `master`,
 * grant the `manage-clients` role of the `<realm>-realm` client instead.
 */
export class KeycloakIdentityProvider implements IdentityProvider {
  readonly kind = 'keycloak';
  private readonly admin: KeycloakAdminClient;
  private readonly realm: string;
  private readonly tokenUrl: string;
  private tokenExpiresAt = 0;
  private authenticating: Promise<void> | undefined;

  constructor(private readonly options: KeycloakIdentityProviderOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.realm = options.realm;
    this.tokenUrl = `${baseUrl}/realms/${encodeURIComponent(options.realm)}/protocol/openid-connect/token`;
    // The client's realm is where it authenticates; every admin call names the MCP realm itself.
    this.admin = new KeycloakAdminClient({ baseUrl, realmName: options.adminRealm ?? options.realm, timeout: options.timeoutMs ?? 10_000 });
  }

  async ensureClient(spec: McpClientSpec): Promise<{ credentials: McpClientCredentials; changed: boolean }> {
    const writes = { count: 0 };
    const scopeIds = await this.ensureScopes(writes);
    const id = await this.ensureClientRecord(spec, writes);
    await this.ensureMappers(id, spec, writes);
    await this.ensureDefaultScopes(id, spec, scopeIds, writes);
    const clientSecret = await this.secret(id, spec.clientId, writes);
    return { credentials: { clientId: spec.clientId, clientSecret, tokenUrl: this.tokenUrl }, changed: writes.count > 0 };
  }

  async deleteClient(clientId: string): Promise<void> {
    const existing = await this.findClient(clientId);
    if (!existing?.id) return;
    this.requireManaged(existing, clientId);
    const { id } = existing;
    try {
      await this.call(`deleting client "${clientId}"`, () => this.admin.clients.del({ realm: this.realm, id }));
    } catch (err) {
      // Deleted by someone else between the lookup and the delete: the outcome asked for.
      if (!(err instanceof KeycloakAdminError && err.status === 404)) throw err;
    }
  }

  /** The realm client scopes `mcp:read`, `mcp:write`, `mcp:admin`, created or repaired; their ids by name. */
  private async ensureScopes(writes: { count: number }): Promise<Map<OAuthScope, string>> {
    const list = () => this.call('listing client scopes', () => this.admin.clientScopes.find({ realm: this.realm }));
    let scopes = await list();
    const ids = new Map<OAuthScope, string>();
    for (const name of OAUTH_SCOPES) {
      const existing = scopes.find((s) => s.name === name);
      if (!existing?.id) {
        writes.count++;
        try {
          const { id } = await this.call(`creating client scope "${name}"`, () =>
            this.admin.clientScopes.create({
              realm: this.realm,
              name,
              protocol: OIDC,
              description: `Lore MCP scope ${name}`,
              attributes: { 'include.in.token.scope': 'true' },
            }),
          );
          ids.set(name, id);
        } catch (err) {
          // Another reconcile created it meanwhile.
          if (!(err instanceof KeycloakAdminError && err.status === 409)) throw err;
          scopes = await list();
          const created = scopes.find((s) => s.name === name)?.id;
          if (!created) throw err;
          ids.set(name, created);
        }
        continue;
      }
      const { id } = existing;
      if (existing.protocol !== OIDC || existing.attributes?.['include.in.token.scope'] !== 'true') {
        writes.count++;
        const repaired: ClientScopeRepresentation = {
          id,
          name,
          description: existing.description,
          protocol: OIDC,
          attributes: { ...existing.attributes, 'include.in.token.scope': 'true' },
        };
        await this.call(`updating client scope "${name}"`, () => this.admin.clientScopes.update({ realm: this.realm, id }, repaired));
      }
      ids.set(name, id);
    }
    return ids;
  }

  /** The client itself: created, or its settings repaired (Keycloak's PUT changes only the fields sent). */
  private async ensureClientRecord(spec: McpClientSpec, writes: { count: number }): Promise<string> {
    const wanted = {
      clientId: spec.clientId,
      name: spec.displayName,
      enabled: true,
      protocol: OIDC,
      publicClient: false,
      bearerOnly: false,
      serviceAccountsEnabled: true,
      standardFlowEnabled: false,
      directAccessGrantsEnabled: false,
      implicitFlowEnabled: false,
      clientAuthenticatorType: 'client-secret',
    } satisfies ClientRepresentation;
    const attributes = { [MANAGED_BY_ATTRIBUTE]: MANAGED_BY_VALUE, [TENANT_ATTRIBUTE]: spec.tenantId };
    const existing = await this.findClient(spec.clientId);
    if (!existing?.id) {
      writes.count++;
      // No defaultClientScopes here: sending them would drop the realm's default scopes (e.g. `basic`, which gives `sub`).
      const { id } = await this.call(`creating client "${spec.clientId}"`, () =>
        this.admin.clients.create({ realm: this.realm, ...wanted, attributes }),
      );
      return id;
    }
    this.requireManaged(existing, spec.clientId);
    const { id } = existing;
    const drifted =
      Object.entries(wanted).some(([key, value]) => existing[key as keyof typeof wanted] !== value) ||
      !sameConfig(existing.attributes, attributes);
    if (drifted) {
      writes.count++;
      await this.call(`updating client "${spec.clientId}"`, () => this.admin.clients.update({ realm: this.realm, id }, { ...wanted, attributes }));
    }
    return id;
  }

  private async ensureMappers(id: string, spec: McpClientSpec, writes: { count: number }): Promise<void> {
    const hardcoded = (claim: string, value: string): WantedMapper => ({
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: {
        'claim.name': claim,
        'claim.value': value,
        'jsonType.label': 'String',
        'access.token.claim': 'true',
        'id.token.claim': 'false',
        'userinfo.token.claim': 'false',
        'introspection.token.claim': 'true',
      },
    });
    const wanted = new Map<string, WantedMapper>([[TENANT_MAPPER, hardcoded('tenant_id', spec.tenantId)]]);
    if (spec.subTenantId !== null) wanted.set(SUB_TENANT_MAPPER, hardcoded('sub_tenant_id', spec.subTenantId));
    for (const audience of spec.audiences) {
      wanted.set(`${MAPPER_PREFIX}audience ${audience}`, {
        protocolMapper: 'oidc-audience-mapper',
        config: {
          'included.custom.audience': audience,
          'access.token.claim': 'true',
          'id.token.claim': 'false',
          'introspection.token.claim': 'true',
        },
      });
    }

    const step = (verb: string, name: string) => `${verb} protocol mapper "${name}" of client "${spec.clientId}"`;
    const existing = await this.call(`listing protocol mappers of client "${spec.clientId}"`, () =>
      this.admin.clients.listProtocolMappers({ realm: this.realm, id }),
    );
    for (const { id: mapperId, name = '', protocol, protocolMapper, config } of existing) {
      if (!mapperId) continue;
      // Ours by name; someone else's that emits Lore's claims would put the client in another tenant: deleted too.
      const want = wanted.get(name);
      if (want) {
        wanted.delete(name);
        if (protocol === OIDC && protocolMapper === want.protocolMapper && sameConfig(config, want.config)) continue;
        writes.count++;
        const repaired: ProtocolMapperRepresentation = { id: mapperId, name, protocol: OIDC, ...want };
        await this.call(step('updating', name), () => this.admin.clients.updateProtocolMapper({ realm: this.realm, id, mapperId }, repaired));
      } else if (name.startsWith(MAPPER_PREFIX) || LORE_CLAIMS.includes(String(config?.['claim.name']))) {
        writes.count++;
        await this.call(step('deleting', name), () => this.admin.clients.delProtocolMapper({ realm: this.realm, id, mapperId }));
      }
    }
    for (const [name, want] of wanted) {
      writes.count++;
      await this.call(step('creating', name), () =>
        this.admin.clients.addProtocolMapper({ realm: this.realm, id }, { name, protocol: OIDC, ...want }),
      );
    }
  }

  /**
   * The client's default scopes hold exactly the spec's `mcp:*` scopes (other default scopes, e.g. the
   * realm's `basic`, are left alone), and no `mcp:*` scope is optional: a client could request an
   * optional one and get more than the spec grants.
   */
  private async ensureDefaultScopes(
    id: string,
    { clientId, scopes }: McpClientSpec,
    scopeIds: Map<OAuthScope, string>,
    writes: { count: number },
  ): Promise<void> {
    const realm = this.realm;
    const of = `of client "${clientId}"`;
    // Optional ones go first: Keycloak silently ignores adding as default a scope the client already has as optional.
    const optional = await this.call(`listing optional client scopes ${of}`, () => this.admin.clients.listOptionalClientScopes({ realm, id }));
    for (const scope of optional) {
      if (!scope.id || !scope.name || !isOAuthScope(scope.name)) continue;
      const clientScopeId = scope.id;
      writes.count++;
      await this.call(`removing optional client scope "${scope.name}" ${of}`, () =>
        this.admin.clients.delOptionalClientScope({ realm, id, clientScopeId }),
      );
    }
    const current = await this.call(`listing default client scopes ${of}`, () => this.admin.clients.listDefaultClientScopes({ realm, id }));
    const present = new Set(current.map((s) => s.name));
    for (const scope of current) {
      if (!scope.id || !scope.name || !isOAuthScope(scope.name) || scopes.includes(scope.name)) continue;
      const clientScopeId = scope.id;
      writes.count++;
      await this.call(`removing default client scope "${scope.name}" ${of}`, () =>
        this.admin.clients.delDefaultClientScope({ realm, id, clientScopeId }),
      );
    }
    for (const name of scopes) {
      const clientScopeId = scopeIds.get(name);
      if (present.has(name) || !clientScopeId) continue;
      writes.count++;
      await this.call(`adding default client scope "${name}" ${of}`, () => this.admin.clients.addDefaultClientScope({ realm, id, clientScopeId }));
    }
  }

  /** The client secret; a confidential client without one (switched away and back outside) gets a new one. */
  private async secret(id: string, clientId: string, writes: { count: number }): Promise<string> {
    const current = await this.call(`reading the secret of client "${clientId}"`, () => this.admin.clients.getClientSecret({ realm: this.realm, id }));
    if (current.value) return current.value;
    writes.count++;
    const generated = await this.call(`generating a secret for client "${clientId}"`, () =>
      this.admin.clients.generateNewClientSecret({ realm: this.realm, id }),
    );
    if (!generated.value) throw new KeycloakAdminError(`generating a secret for client "${clientId}"`, 200, 'Keycloak returned no secret');
    return generated.value;
  }

  private async findClient(clientId: string): Promise<ClientRepresentation | undefined> {
    const found = await this.call(`looking up client "${clientId}"`, () => this.admin.clients.find({ realm: this.realm, clientId }));
    return found.find((c) => c.clientId === clientId);
  }

  private requireManaged(client: ClientRepresentation, clientId: string): void {
    if (client.attributes?.[MANAGED_BY_ATTRIBUTE] === MANAGED_BY_VALUE) return;
    throw new Error(
      `Keycloak: client "${clientId}" exists in realm "${this.realm}" but was not made by Lore's operator ` +
        `(no ${MANAGED_BY_ATTRIBUTE}=${MANAGED_BY_VALUE} attribute); it is left alone. Delete it or rename the tenant's client.`,
    );
  }

  /** One admin call, authenticated; a 401 (token revoked or expired early) re-authenticates and retries once. */
  private async call<T>(step: string, request: () => Promise<T>): Promise<T> {
    await this.authenticate(false);
    try {
      return await request();
    } catch (err) {
      if (statusOf(err) !== 401) throw new KeycloakAdminError(step, statusOf(err), detailOf(err), { cause: err });
    }
    await this.authenticate(true);
    try {
      return await request();
    } catch (err) {
      throw new KeycloakAdminError(step, statusOf(err), detailOf(err), { cause: err });
    }
  }

  private async authenticate(force: boolean): Promise<void> {
    if (!force && this.tokenExpiresAt - Date.now() > REFRESH_MARGIN_MS) return;
    // Concurrent reconciles share one token request.
    this.authenticating ??= this.login().finally(() => {
      this.authenticating = undefined;
    });
    await this.authenticating;
  }

  private async login(): Promise<void> {
    const { adminClientId: clientId, adminClientSecret: clientSecret } = this.options;
    this.tokenExpiresAt = 0;
    try {
      await this.admin.auth({ grantType: 'client_credentials', clientId, clientSecret });
    } catch (err) {
      const step = `authenticating admin client "${clientId}" in realm "${this.admin.realmName}"`;
      throw new KeycloakAdminError(step, statusOf(err), detailOf(err), { cause: err });
    }
    let exp: number | undefined;
    try {
      exp = decodeJwt(this.admin.accessToken ?? '').exp;
    } catch {
      exp = undefined;
    }
    // A token whose expiry cannot be read is used until a call gets 401.
    this.tokenExpiresAt = exp === undefined ? Number.POSITIVE_INFINITY : exp * 1000;
  }
}
