import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import type { PortalConfig } from '../../core/config.js';
import { type RequestContext, type Role, ROLES, roleAtLeast } from '../../core/context.js';
import { AppError, ValidationError, errors } from '../../core/errors.js';
import { preferredLanguage } from '../../core/portal/emails.js';
import type { SessionRow } from '../../core/portal/portal.repository.js';
import { assertStorableText, parseInput } from '../../core/shared/input.js';
import { tenantScope } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { sameSecret, tenantContext } from '../middleware/auth.js';
import { formParser } from '../text-input.js';
import { asAppError } from '../error-handler.js';
import { type RouteSpec, authorize } from '../route.js';
import { FAVICON_SVG } from './favicon.js';
import { FORM_COOKIE, SESSION_COOKIE, clearCookie, readCookie, setCookie } from './cookies.js';
import {
  type BillingData,
  type DocumentView,
  type KeyView,
  type KnowledgeBaseView,
  type OverviewData,
  type SubTenantView,
  type Viewer,
  accountPage,
  billingPage,
  enterprisePage,
  forgotPage,
  keysPage,
  knowledgeBasePage,
  knowledgeBasesPage,
  messagePage,
  overviewPage,
  passwordPage,
  signInPage,
} from './pages.js';

export interface PortalDeps {
  services: Pick<Services, 'portal'>;
  /** The REST routes: the portal reads through the same handlers (roles, presenters, isolation identical). */
  routes: RouteSpec[];
  config: Pick<PortalConfig, 'secureCookies' | 'sessionMaxHours'>;
  log: Logger;
}

const ASSETS: Record<string, { type: string; body: string }> = {
  'portal.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/portal.css', import.meta.url), 'utf8') },
  'portal.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/portal.js', import.meta.url), 'utf8') },
  'favicon.svg': { type: 'image/svg+xml; charset=utf-8', body: FAVICON_SVG },
};

/** Headers of every portal response: no framing, no referrer to other sites (links carry tokens), no caching, scripts only from Lore. */
function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  next();
}

function formString(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A cross-site form post carries another site's Origin: refused whatever else it holds. */
function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  if (!origin || origin === 'null') return origin === undefined;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

/**
 * The web portal at /portal (spec §5): sign-in, password links, and pages over the tenant's keys,
 * knowledge bases, billing, DPA, account and sub-tenants. Pages read through the REST routes'
 * handlers with the person's role; changes are made by the page script through the REST API itself,
 * authenticated by the session cookie and its CSRF token. Forms that work without a session (sign-in,
 * reset) are protected by a double-submit token and an Origin check.
 */
export function portalRouter(deps: PortalDeps): Router {
  const { services, routes, config, log } = deps;
  const { portal } = services;
  const router = express.Router();
  const cookieOptions = { secure: config.secureCookies };
  router.use('/portal', securityHeaders);
  // Metrics and logs name a page by its route template, never its URL (links carry tokens).
  const template = (req: Request, res: Response, next: NextFunction) => {
    res.locals.routeTemplate = (req.route as { path?: string } | undefined)?.path ?? '/portal';
    next();
  };
  router.use('/portal', formParser({ limit: '32kb', parameterLimit: 20, location: 'form' }));
  // The text rule of every input (core/shared/input.ts): no NUL, no lone surrogates, in forms and query strings.
  router.use('/portal', (req: Request, _res: Response, next: NextFunction) => {
    assertStorableText(req.query, 'query');
    assertStorableText(req.body, 'form');
    next();
  });

  router.get('/portal/assets/:name', template, (req, res) => {
    const asset = ASSETS[String(req.params.name)];
    if (!asset) throw errors.notFound('asset');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type(asset.type).send(asset.body);
  });

  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);

  /** The double-submit token of the signed-out forms: the cookie's value, set when missing. */
  const formToken = (req: Request, res: Response): string => {
    const existing = readCookie(req, FORM_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomBytes(32).toString('base64url');
    setCookie(res, FORM_COOKIE, token, { ...cookieOptions, sameSite: 'strict' });
    return token;
  };
  const checkForm = (req: Request): void => {
    const cookie = readCookie(req, FORM_COOKIE);
    if (!sameOrigin(req) || !cookie || !sameSecret(formString(req, '_form'), cookie)) {
      throw errors.forbidden('csrf_token_invalid', 'The form has expired; load the page again.');
    }
  };

  // Signed out

  router.get('/portal', template, async (req, res) => {
    const session = await portal.session(readCookie(req, SESSION_COOKIE));
    res.redirect(303, session ? '/portal/overview' : '/portal/sign-in');
  });

  router.get('/portal/sign-in', template, (req, res) => {
    const notes: Record<string, string> = {
      password: 'Your password is set. Sign in with it.',
      ended: 'You have been signed out everywhere.',
      deleted: 'The account has been deleted.',
    };
    const key = Object.keys(notes).find((k) => req.query[k] !== undefined);
    send(res, 200, signInPage(formToken(req, res), key ? { kind: 'ok', text: notes[key]! } : undefined));
  });

  router.post('/portal/sign-in', template, async (req, res) => {
    const token = formToken(req, res);
    const email = formString(req, 'email');
    try {
      checkForm(req);
      const started = await portal.signIn(email, formString(req, 'password'), req.ip ?? 'unknown', preferredLanguage(req.get('accept-language')));
      setCookie(res, SESSION_COOKIE, started.sessionId, { ...cookieOptions, maxAgeSeconds: config.sessionMaxHours * 3600 });
      res.redirect(303, '/portal/overview');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      send(res, err.status, signInPage(token, { kind: 'error', text: err.message }, email));
    }
  });

  router.get('/portal/forgot', template, (req, res) => send(res, 200, forgotPage(formToken(req, res), false)));

  router.post('/portal/forgot', template, async (req, res) => {
    const token = formToken(req, res);
    try {
      checkForm(req);
      await portal.requestReset(formString(req, 'email'), req.ip ?? 'unknown');
      send(res, 200, forgotPage(token, true));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      send(res, err.status, forgotPage(token, false, err.message));
    }
  });

  /** A link's page: its form, why an invitation cannot be accepted (409), or that the link has expired (400). */
  const linkPage = async (res: Response, form: string, token: string, error?: { status: number; text: string }) => {
    const link = await portal.linkIsUsable(token);
    if (link?.refusal) send(res, link.refusal.status, messagePage('This address has an account', link.refusal.message));
    else send(res, error?.status ?? (link ? 200 : 400), passwordPage(form, token, link?.email, error?.text));
  };

  router.get('/portal/password', template, async (req, res) => {
    await linkPage(res, formToken(req, res), typeof req.query.token === 'string' ? req.query.token : '');
  });

  router.post('/portal/password', template, async (req, res) => {
    const form = formToken(req, res);
    const token = formString(req, 'token');
    try {
      checkForm(req);
      const password = formString(req, 'password');
      if (password !== formString(req, 'confirm')) throw errors.invalid('confirm', 'The two passwords differ.');
      await portal.completeLink(token, password);
      clearCookie(res, SESSION_COOKIE, cookieOptions);
      res.redirect(303, '/portal/sign-in?password=set');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const text = err instanceof ValidationError ? `The password ${err.issues.map((i) => i.message).join('; ')}` : err.message;
      await linkPage(res, form, token, { status: err.status, text });
    }
  });

  // Signed in

  interface Signed {
    session: SessionRow;
    viewer: Viewer;
    ctx: RequestContext;
  }

  /** The session of a page request, or undefined after redirecting to sign-in. */
  const signedIn = async (req: Request, res: Response): Promise<Signed | undefined> => {
    const session = await portal.session(readCookie(req, SESSION_COOKIE));
    if (!session) {
      res.redirect(303, '/portal/sign-in');
      return undefined;
    }
    const ctx: RequestContext = {
      principal: { kind: 'portal_user', id: session.user_id, role: session.role, email: session.email },
      ...tenantContext(session),
      userId: null,
      requestId: res.locals.requestId as string,
      log: (res.locals.log as Logger).child({ tenantId: session.tenant_id }),
    };
    const viewer: Viewer = { email: session.email, role: session.role, tenantName: session.tenant_name, plan: session.plan, csrfToken: session.csrf_token };
    return { session, viewer, ctx };
  };

  /** A state-changing portal form: signed in, from this site, with the session's CSRF token. */
  const signedForm = async (req: Request, res: Response, role: Role = 'read'): Promise<Signed | undefined> => {
    const signed = await signedIn(req, res);
    if (!signed) return undefined;
    if (!sameOrigin(req) || !sameSecret(formString(req, '_csrf'), signed.session.csrf_token)) {
      throw errors.forbidden('csrf_token_invalid', 'The form has expired; load the page again.');
    }
    if (!roleAtLeast(signed.session.role, role)) throw errors.insufficientRole(role);
    return signed;
  };

  /** Reads through a REST route's handler, as the signed-in person (its role check included). */
  const read = async <T>(operationId: string, signed: Signed, req: Request, res: Response, params: Record<string, string> = {}): Promise<T> => {
    const spec = routes.find((r) => r.operationId === operationId);
    if (!spec) throw new Error(`no route ${operationId}`);
    authorize(spec, signed.ctx);
    const parsedParams = parseInput(spec.params, params, 'path');
    const query = parseInput(spec.query, {}, 'query');
    return (await spec.handler({ params: parsedParams, query, body: undefined, req, res, ctx: signed.ctx })) as T;
  };
  const readIf = <T>(allowed: boolean, ...args: Parameters<typeof read>): Promise<T | undefined> =>
    allowed ? read<T>(...args) : Promise.resolve(undefined);

  router.get('/portal/overview', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (!signed) return;
    const [usage, billing, dpa] = await Promise.all([
      read<OverviewData['usage']>('getUsage', signed, req, res),
      // Billing status is an admin's read; the overview shows others the plan from the session.
      readIf<OverviewData['billing']>(roleAtLeast(signed.viewer.role, 'admin'), 'getBillingStatus', signed, req, res),
      read<OverviewData['dpa']>('getDpaStatus', signed, req, res),
    ]);
    const fallback = { plan: signed.viewer.plan, billing_interval: 'monthly', current_period_end: '', scheduled_plan: null, cancellation_pending: false };
    send(res, 200, overviewPage(signed.viewer, { usage, billing: billing ?? fallback, dpa }));
  });

  router.get('/portal/keys', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (!signed) return;
    const keys = await readIf<KeyView[]>(roleAtLeast(signed.viewer.role, 'admin'), 'listApiKeys', signed, req, res);
    send(res, 200, keysPage(signed.viewer, keys));
  });

  router.get('/portal/knowledge-bases', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (!signed) return;
    send(res, 200, knowledgeBasesPage(signed.viewer, await read<KnowledgeBaseView[]>('listKnowledgeBases', signed, req, res)));
  });

  router.get('/portal/knowledge-bases/:id', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (!signed) return;
    // The documents route answers 404 for another tenant's (or an unknown) knowledge base.
    const id = String(req.params.id);
    const documents = await read<DocumentView[]>('listKnowledgeBaseDocuments', signed, req, res, { kb_id: id });
    const kb = (await read<KnowledgeBaseView[]>('listKnowledgeBases', signed, req, res)).find((k) => k.id === id);
    if (!kb) throw errors.notFound('knowledge base');
    send(res, 200, knowledgeBasePage(signed.viewer, kb, documents));
  });

  router.get('/portal/billing', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (!signed) return;
    const admin = roleAtLeast(signed.viewer.role, 'admin');
    const [status, usage] = await Promise.all([
      readIf<BillingData['status']>(admin, 'getBillingStatus', signed, req, res),
      readIf<BillingData['usage']>(admin, 'getBillingUsage', signed, req, res),
    ]);
    send(res, 200, billingPage(signed.viewer, status && usage ? { status, usage } : undefined));
  });

  const renderAccount = async (signed: Signed, req: Request, res: Response, status: number, message?: { kind: 'error' | 'ok'; text: string }) => {
    const admin = roleAtLeast(signed.viewer.role, 'admin');
    const dpa = await read<OverviewData['dpa']>('getDpaStatus', signed, req, res);
    const scope = tenantScope(signed.session.tenant_id);
    const [users, invitations] = admin ? await Promise.all([portal.list(scope), portal.invitations(scope)]) : [];
    send(res, status, accountPage(signed.viewer, { dpa, users, invitations, message }));
  };

  router.get('/portal/account', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (signed) await renderAccount(signed, req, res, 200);
  });

  router.get('/portal/enterprise', template, async (req, res) => {
    const signed = await signedIn(req, res);
    if (!signed) return;
    const allowed = signed.viewer.plan === 'enterprise' && roleAtLeast(signed.viewer.role, 'admin');
    const [subTenants, settings] = await Promise.all([
      readIf<SubTenantView[]>(allowed, 'listSubTenants', signed, req, res),
      readIf<{ translation_config: unknown }>(allowed, 'getTenantSettings', signed, req, res),
    ]);
    send(res, 200, enterprisePage(signed.viewer, subTenants, settings));
  });

  router.post('/portal/people', template, async (req, res) => {
    const signed = await signedForm(req, res, 'admin');
    if (!signed) return;
    const role = formString(req, 'role') as Role;
    try {
      if (!ROLES.includes(role)) throw errors.invalid('role', `must be one of ${ROLES.join(', ')}`);
      const email = formString(req, 'email').trim();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw errors.invalid('email', 'must be an e-mail address');
      const scope = tenantScope(signed.session.tenant_id);
      const invitation = await portal.invite(scope, signed.session.user_id, { email, role, language: preferredLanguage(req.get('accept-language')) }, signed.viewer.tenantName);
      // The same answer whether or not the address has an account (nothing here may tell).
      await renderAccount(signed, req, res, 201, { kind: 'ok', text: `${invitation.email} is invited, and listed under Invitations until they accept.` });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      await renderAccount(signed, req, res, err.status, { kind: 'error', text: err instanceof ValidationError ? `The ${err.issues[0]?.field} ${err.issues[0]?.message}.` : err.message });
    }
  });

  router.post('/portal/people/:id/remove', template, async (req, res) => {
    const signed = await signedForm(req, res, 'admin');
    if (!signed) return;
    try {
      const id = String(req.params.id);
      await portal.remove(tenantScope(signed.session.tenant_id), id);
      if (id === signed.session.user_id) {
        clearCookie(res, SESSION_COOKIE, cookieOptions);
        res.redirect(303, '/portal/sign-in');
        return;
      }
      res.redirect(303, '/portal/account');
    } catch (err) {
      if (!(err instanceof AppError) || err.status === 404) throw err;
      await renderAccount(signed, req, res, err.status, { kind: 'error', text: err.message });
    }
  });

  router.post('/portal/invitations/:id/revoke', template, async (req, res) => {
    const signed = await signedForm(req, res, 'admin');
    if (!signed) return;
    await portal.revokeInvitation(tenantScope(signed.session.tenant_id), String(req.params.id));
    res.redirect(303, '/portal/account');
  });

  router.post('/portal/sign-out', template, async (req, res) => {
    const signed = await signedForm(req, res);
    if (!signed) return;
    await portal.signOut(readCookie(req, SESSION_COOKIE) ?? '');
    clearCookie(res, SESSION_COOKIE, cookieOptions);
    res.redirect(303, '/portal/sign-in');
  });

  router.post('/portal/sign-out-everywhere', template, async (req, res) => {
    const signed = await signedForm(req, res);
    if (!signed) return;
    await portal.signOutEverywhere(tenantScope(signed.session.tenant_id), signed.session.user_id);
    clearCookie(res, SESSION_COOKIE, cookieOptions);
    res.redirect(303, '/portal/sign-in?ended=1');
  });

  router.post('/portal/needs-javascript', template, (_req, res) => {
    send(res, 400, messagePage('JavaScript needed', 'This action runs in the page script; turn JavaScript on, or use the REST API.'));
  });

  router.use('/portal', (_req: Request, res: Response) => {
    res.locals.routeTemplate = '/portal/*';
    throw errors.notFound('page');
  });

  // Errors on portal pages are pages too (the REST API keeps its JSON error shape).
  router.use('/portal', (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const appError = asAppError(err);
    if (appError) {
      for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
      const title = appError.status === 404 ? 'Not found' : appError.status === 403 ? 'Not allowed' : 'Something is wrong';
      const detail = appError instanceof ValidationError ? ` ${appError.issues.map((i) => `${i.field}: ${i.message}`).join('; ')}` : '';
      send(res, appError.status, messagePage(title, `${appError.message}${detail}`));
      return;
    }
    ((res.locals.log as Logger | undefined) ?? log).error({ err }, 'portal page failed');
    send(res, 500, messagePage('Something went wrong', 'The page could not be shown; try again in a moment.'));
  });
  return router;
}
