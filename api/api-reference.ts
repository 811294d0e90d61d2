import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';

/** Swagger UI's files, from the swagger-ui-dist package: the page needs nothing from the network. */
const ASSETS = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SERVED = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Lore API reference</title>
  <link rel="stylesheet" href="/docs/api/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/api/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/api/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/api/init.js"></script>
</body>
</html>
`;

// "Try it out" sends real requests with the key a reader enters under Authorize.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  persistAuthorization: false,
});
`;

/**
 * The API reference at /docs/api: Swagger UI rendering /v1/openapi.json, with its assets served
 * from npm's copy (no CDN), so it works on an instance without internet access.
 */
export function apiReferenceRouter(): Router {
  const router = express.Router();
  const send = (type: string, body: string) => (req: Request, res: Response) => {
    res.locals.routeTemplate = req.path;
    res.type(type).set('Cache-Control', 'no-cache').send(body);
  };
  router.get('/docs/api', send('html', PAGE));
  router.get('/docs/api/init.js', send('js', INIT));
  router.get('/docs/api/assets/:file', (req: Request<{ file: string }>, res: Response, next) => {
    if (!SERVED.has(req.params.file)) return next();
    res.locals.routeTemplate = '/docs/api/assets/:file';
    res.set('Cache-Control', 'public, max-age=86400').sendFile(path.join(ASSETS, req.params.file));
  });
  return router;
}
