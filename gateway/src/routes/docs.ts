import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, contract } from '@connectivity/contracts';
import { tsRestOptions } from '@connectivity/platform';
import { apiReference } from '@scalar/express-api-reference';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { Router, type Express, type RequestHandler } from 'express';

// The reference page's script is served from the installed package rather than a CDN, so the
// sandbox's docs work on a laptop with no network, and no third party sees who reads them.
const SCRIPT_PATH = '/docs/assets/standalone.js';
const standaloneScript = join(dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))), 'browser', 'standalone.js');

/**
 * The API's documents, no key needed and counted per address by `limit`: `/v1/openapi.json`
 * (the contract's route, built once) and `/docs`, the human reference rendered from it by Scalar.
 */
export function mountDocs(app: Express, limit: RequestHandler, baseUrl: string): void {
  const openApiRoute = { getOpenApiDocument: contract.meta.getOpenApiDocument };
  let openApi: ReturnType<typeof buildOpenApiDocument> | undefined;
  const router = initServer().router(openApiRoute, {
    getOpenApiDocument: {
      middleware: [limit],
      handler: () => Promise.resolve({ status: 200, body: (openApi ??= buildOpenApiDocument({ serverUrl: baseUrl })) }),
    },
  });
  createExpressEndpoints(openApiRoute, router, app, tsRestOptions);
  app.use(docsRoutes(limit));
}

function docsRoutes(limit: RequestHandler): Router {
  const router = Router();
  router.get(SCRIPT_PATH, limit, (_req, res) => {
    // The script may be kept (unlike API answers, whose default is no-store): send sets its own max-age.
    res.removeHeader('Cache-Control');
    // 'allow': the package lives under node_modules/.pnpm, a dot-folder send() would refuse.
    res.sendFile(standaloneScript, { maxAge: '1d', dotfiles: 'allow' });
  });
  router.get(
    '/docs',
    limit,
    apiReference({
      url: '/v1/openapi.json',
      pageTitle: 'Connectivity Service API reference',
      cdn: SCRIPT_PATH,
      // Nothing from another origin and nothing of the vendor's hosted product: system fonts instead of
      // its font CDN, no telemetry, no AI agent ("Ask AI"), no MCP generator, no developer toolbar ("Deploy").
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
    }) as unknown as RequestHandler,
  );
  return router;
}
