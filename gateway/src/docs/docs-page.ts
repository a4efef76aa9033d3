import path from 'node:path';
import { Router, type Response } from 'express';
import { NotFoundError } from '@community/contracts';
import { OPENAPI_PATH } from './openapi-document';

/** Swagger UI's prebuilt browser bundle, served from our own node_modules: no CDN involved. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'swagger-ui.css',
  'swagger-ui-bundle.js': 'swagger-ui-bundle.js',
  'favicon-32x32.png': 'favicon-32x32.png',
};

/**
 * Everything the page may load comes from this origin; no inline script. Swagger UI sets inline
 * styles and embeds its icons as data: URIs, hence those two allowances.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Community Platform API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <noscript>This page needs JavaScript. The OpenAPI document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>
`;

// A file of its own rather than an inline script, so the CSP can forbid inline scripts.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    layout: 'BaseLayout',
    presets: [SwaggerUIBundle.presets.apis],
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
  });
});
`;

function secure(res: Response, cacheSeconds: number): void {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', cacheSeconds ? `public, max-age=${cacheSeconds}` : 'no-cache');
}

/**
 * `GET /docs`: the API reference rendered by Swagger UI from `/api/v1/openapi.json`. The page and
 * its assets are the same for everyone and hold no data, so they need no key; they count against
 * the per-address pages budget (PAGES_HOURLY_LIMIT, app.ts), and the document it fetches goes
 * through the gateway like any request without a key.
 */
export function docsRouter(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    secure(res, 0);
    res.type('html').send(PAGE);
  });
  router.get('/assets/init.js', (_req, res) => {
    secure(res, 0);
    res.type('js').send(INIT);
  });
  router.get('/assets/:file', (req, res, next) => {
    const file = ASSETS[req.params.file];
    if (!file) return next(new NotFoundError('route'));
    secure(res, 86_400);
    res.sendFile(path.join(SWAGGER_UI_DIR, file), { cacheControl: false }, (err) => err && next(err));
  });
  router.use((_req, _res, next) => next(new NotFoundError('route')));
  return router;
}
