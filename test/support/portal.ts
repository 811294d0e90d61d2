import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { TEST_ADMIN_TOKEN, client } from './app.js';
import { type ReceivedMail, portalLink } from './smtp.js';

/**
 * A person using the portal over HTTP without a browser: keeps cookies as a browser would, posts
 * the forms with their hidden tokens, and calls the REST API with the session and its CSRF token.
 */
export class PortalVisitor {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, for checking the flags. */
  readonly setCookies: string[] = [];

  /** `headers` go with every request (X-Forwarded-For: a visitor at another client address, behind a trusted proxy). */
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  /** `body` is sent as it is (with the content type in `headers`), for bodies no form or JSON value makes. */
  async request(
    method: string,
    path: string,
    options: { form?: Record<string, string>; json?: unknown; body?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (cookie) headers.cookie = cookie;
    let body = options.body;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0\b/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Loads a page and answers its text. */
  async page(path: string): Promise<{ status: number; html: string; location: string | null }> {
    const res = await this.request('GET', path);
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  }

  /** A hidden field's value in a page. */
  static field(html: string, name: string): string {
    const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html) ?? new RegExp(`name="${name}" content="([^"]*)"`).exec(html);
    if (!match) throw new Error(`no ${name} in the page`);
    return match[1]!;
  }

  /** Posts a signed-out form (sign-in, reset) after loading its page, with the page's form token. */
  async postForm(pagePath: string, action: string, fields: Record<string, string>): Promise<Response> {
    const { html } = await this.page(pagePath);
    return this.request('POST', action, { form: { _form: PortalVisitor.field(html, '_form'), ...fields } });
  }

  /** Follows an e-mailed set-password link (an invitation or a reset) and chooses the password. */
  async choosePassword(link: string, password: string): Promise<Response> {
    const { html } = await this.page(link);
    return this.request('POST', '/portal/password', { form: { _form: PortalVisitor.field(html, '_form'), token: PortalVisitor.field(html, 'token'), password, confirm: password } });
  }

  async signIn(email: string, password: string): Promise<Response> {
    return this.postForm('/portal/sign-in', '/portal/sign-in', { email, password });
  }

  /** The session's CSRF token, from a signed-in page. */
  async csrfToken(): Promise<string> {
    const { html } = await this.page('/portal/overview');
    return PortalVisitor.field(html, 'csrf-token');
  }

  /** A REST call made with the session (and its CSRF token), as the portal script makes them. */
  async api(method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const csrf = await this.csrfToken();
    const res = await this.request(method, path, { json, headers: { 'x-csrf-token': csrf, ...headers } });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
}

/** The mails to an address, once at least `n` have arrived (or after 2 s, whatever arrived). */
export async function receivedMails(mails: ReceivedMail[], email: string, n: number): Promise<ReceivedMail[]> {
  const to = () => mails.filter((m) => m.to.includes(email));
  for (let i = 0; i < 100 && to().length < n; i++) await new Promise((r) => setTimeout(r, 20));
  return to();
}

/**
 * A tenant created through the admin API with an e-mail address, which becomes its first portal user:
 * the e-mailed link sets their password, and they sign in.
 */
export async function tenantWithPortalUser(
  url: string,
  mails: ReceivedMail[],
  password: string,
  options: { plan?: string; name?: string; visitor?: PortalVisitor } = {},
): Promise<{ id: string; key: string; email: string; name: string; visitor: PortalVisitor }> {
  const { plan = 'standard', name = `Portal ${plan}` } = options;
  const email = `owner-${randomUUID()}@example.test`;
  const res = await client(url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name, plan, email });
  assert.equal(res.status, 201);
  assert.equal(res.body.portal_invitation.email, email);
  assert.match(res.body.portal_invitation.delivered_to, /^smtp /);
  const [invite] = await receivedMails(mails, email, 1);
  const visitor = options.visitor ?? new PortalVisitor(url);
  assert.equal((await visitor.choosePassword(portalLink(invite!), password)).status, 303);
  assert.equal((await visitor.signIn(email, password)).status, 303);
  return { id: res.body.id as string, key: res.body.api_key as string, email, name, visitor };
}
