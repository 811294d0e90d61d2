/** A URL or address Lore will not send to: refused before any connection. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  constructor(
    readonly reason: 'invalid_url' | 'blocked_address' | 'unresolvable',
    message: string,
  ) {
    super(message);
  }
}

/** The request was sent (or tried) and failed in transit: worth another try later. */
export class OutboundFailedError extends Error {
  override name = 'OutboundFailedError';
  constructor(
    readonly reason: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
  }
}

/** Calls to addresses tenants supply (callbacks): checked against server-side request forgery. */
export interface OutboundHttp {
  /** Checks a URL as far as can be done before sending (syntax, scheme, resolved addresses); throws `OutboundRefusedError`. */
  check(url: string): Promise<void>;
  /** POSTs and resolves to the response status; throws `OutboundRefusedError` or `OutboundFailedError`. */
  post(url: string, headers: Record<string, string>, body: string): Promise<number>;
}
