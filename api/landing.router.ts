import express, { type Request, type Response, type Router } from 'express';
import { FAVICON_ICO } from './portal/favicon.js';

/** What the instance offers a newcomer, as paths: Lore never builds a link from a request's Host header. */
const INDEX = { name: 'Lore', portal: '/portal', api_reference: '/docs/api', openapi: '/v1/openapi.json' } as const;

/**
 * The instance's root and /docs, where a newcomer first points a browser or a client. A browser
 * (it prefers HTML to JSON) is sent on: `/` to the portal, `/docs` to the API reference. Anything
 * else (an API client, curl's `*\/*`, no Accept at all) gets a small JSON index naming the three.
 * And /favicon.ico, which browsers ask for wherever a page names no icon: Lore's.
 */
export function landingRouter(): Router {
  const router = express.Router();
  const landing = (template: string, browserGoesTo: string) => (req: Request, res: Response) => {
    res.locals.routeTemplate = template;
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') res.redirect(303, browserGoesTo);
    else res.json(INDEX);
  };
  router.get('/', landing('/', INDEX.portal));
  router.get('/docs', landing('/docs', INDEX.api_reference));
  router.get('/favicon.ico', (_req: Request, res: Response) => {
    res.locals.routeTemplate = '/favicon.ico';
    res.set('Cache-Control', 'public, max-age=86400').type('image/x-icon').send(FAVICON_ICO);
  });
  return router;
}
