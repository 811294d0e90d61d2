/**
 * Where the authorization server and the MCP endpoint are reached: `{auth_url}` and `{mcp_url}`
 * of the spec. Configured (AUTH_URL, MCP_URL, falling back to PUBLIC_BASE_URL) in production; when
 * unset, taken from the request, so a development server's issuer is exactly the URL its metadata
 * was fetched from.
 */
export interface OAuthUrlConfig {
  authUrl: string | undefined;
  mcpUrl: string | undefined;
}

export interface OAuthUrls {
  /** The issuer identifier (RFC 8414): the authorization server's base URL, no trailing slash. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  registrationEndpoint: string;
  jwksUri: string;
  authorizationServerMetadata: string;
  /** The MCP server's base URL: the resource identifier of /.well-known/oauth-protected-resource. */
  mcpBase: string;
  /** The MCP endpoint's canonical URL: the default token audience. */
  mcpResource: string;
  /** RFC 9728 metadata of the MCP endpoint (named in WWW-Authenticate). */
  mcpResourceMetadata: string;
  /** Path the SSE transport tells clients to POST their messages to. */
  sseMessagePath: string;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export function oauthUrls(config: OAuthUrlConfig, requestBase: string): OAuthUrls {
  const auth = trimSlash(config.authUrl ?? requestBase);
  const mcp = trimSlash(config.mcpUrl ?? requestBase);
  const mcpOrigin = new URL(mcp).origin;
  const mcpPath = new URL(mcp).pathname.replace(/\/+$/, '');
  const authOrigin = new URL(auth).origin;
  const authPath = new URL(auth).pathname.replace(/\/+$/, '');
  return {
    issuer: auth,
    authorizationEndpoint: `${auth}/oauth/authorize`,
    tokenEndpoint: `${auth}/oauth/token`,
    revocationEndpoint: `${auth}/oauth/revoke`,
    registrationEndpoint: `${auth}/oauth/register`,
    jwksUri: `${auth}/oauth/jwks`,
    // RFC 8414 §3: the well-known segment goes between the host and the issuer's path.
    authorizationServerMetadata: `${authOrigin}/.well-known/oauth-authorization-server${authPath}`,
    mcpBase: mcp,
    mcpResource: `${mcp}/mcp`,
    mcpResourceMetadata: `${mcpOrigin}/.well-known/oauth-protected-resource${mcpPath}/mcp`,
    sseMessagePath: `${mcpPath}/mcp/message`,
  };
}

/** The audiences the MCP endpoint accepts: its canonical URL and the MCP server's base URL. */
export function mcpAudiences(urls: OAuthUrls): string[] {
  return [urls.mcpResource, urls.mcpBase];
}
