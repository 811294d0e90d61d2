import type { Request, Response } from 'express';

/** The portal session's cookie: its value is the session id (only its digest is stored). */
export const SESSION_COOKIE = 'lore_session';
/** Before sign-in: a random value the sign-in and reset forms echo back (double submit), against login CSRF. */
export const FORM_COOKIE = 'lore_form';
/** How a script sends the session's CSRF token with a REST request authenticated by the session cookie. */
export const CSRF_HEADER = 'x-csrf-token';

/** A cookie of the request, or undefined (no parser dependency: the Cookie header is `name=value; …`). */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
}

/** HttpOnly, SameSite=Lax (Strict for the form cookie), Secure unless configured off, path /. */
export function setCookie(res: Response, name: string, value: string, options: CookieOptions & { maxAgeSeconds?: number; sameSite?: 'lax' | 'strict' }): void {
  res.cookie(name, value, {
    httpOnly: true,
    secure: options.secure,
    sameSite: options.sameSite ?? 'lax',
    path: '/',
    ...(options.maxAgeSeconds !== undefined ? { maxAge: options.maxAgeSeconds * 1000 } : {}),
  });
}

export function clearCookie(res: Response, name: string, options: CookieOptions): void {
  res.clearCookie(name, { httpOnly: true, secure: options.secure, sameSite: 'lax', path: '/' });
}
