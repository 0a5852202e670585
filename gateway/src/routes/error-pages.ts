import { ERROR_CATALOGUE, ERROR_CODES, ERROR_GUIDES, errorExample, isErrorCode, type ErrorCode } from '@connectivity/contracts';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { marked } from 'marked';

// An error's `link` opened by a person: a browser asks for HTML and sends no key. Such a request gets
// the code's page; every other one (an API client, or any request with a key) goes on to the JSON route.

const STYLE = `
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; margin: 0; background: #fafafa; }
main { max-width: 46rem; margin: 0 auto; padding: 2.5rem 1.25rem 4rem; }
h1 { font-size: 1.7rem; margin: .3rem 0; } h2 { font-size: 1.1rem; margin-top: 2rem; }
code, pre { font: 14px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: #eef0f3; padding: .1rem .3rem; border-radius: 4px; }
pre { background: #1d1f24; color: #e8e8e8; padding: 1rem; border-radius: 8px; overflow-x: auto; }
pre code { background: none; padding: 0; }
.meta { color: #555; } .meta span { display: inline-block; margin-right: 1rem; }
nav a, a { color: #0a58ca; } ul.codes { columns: 2; padding-left: 1.1rem; }
`;

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const inline = (markdown: string) => marked.parseInline(markdown, { async: false });

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
<nav><a href="/docs">API reference</a></nav>
${body}
</main></body>
</html>
`;
}

/** The page of one error code: what it means, what to do, what the API answers, and its siblings of the same type. */
export function errorCodePage(code: ErrorCode, baseUrl: string): string {
  const { type, status, description } = ERROR_CATALOGUE[code];
  const example = JSON.stringify(errorExample(code, { response: undefined, param: 'quantity' }, baseUrl), null, 2);
  const siblings = ERROR_CODES.filter((other) => other !== code && ERROR_CATALOGUE[other].type === type);
  return page(
    `${code} · Connectivity Service API`,
    `<h1><code>${code}</code></h1>
<p class="meta"><span>HTTP ${status}</span><span>type <code>${type}</code></span></p>
<h2>What it means</h2>
<p>${inline(description)}</p>
<h2>What to do</h2>
<p>${inline(ERROR_GUIDES[code])}</p>
<h2>What the API answers</h2>
<p>Branch on <code>code</code>; <code>message</code> is for people and may change. Quote the <code>Request-Id</code> header to support.</p>
<pre><code>${escape(example)}</code></pre>
${siblings.length > 0 ? `<h2>Other <code>${type}</code> errors</h2>\n<ul class="codes">${siblings.map((other) => `<li><a href="/v1/errors/${other}"><code>${other}</code></a></li>`).join('')}</ul>` : ''}`,
  );
}

function unknownCodePage(code: string): string {
  return page(
    'Unknown error code · Connectivity Service API',
    `<h1>No error code <code>${escape(code)}</code></h1>
<p>The API answers with these codes:</p>
<ul class="codes">${ERROR_CODES.map((known) => `<li><a href="/v1/errors/${known}"><code>${known}</code></a></li>`).join('')}</ul>`,
  );
}

/** A person's request: prefers HTML to JSON and carries no key (record 0257). */
const isPerson = (req: Request) => req.headers.authorization === undefined && req.accepts(['application/json', 'text/html']) === 'text/html';

/** `GET /v1/errors/<code>` as an HTML page for people; `limit` counts it like the other keyless pages. */
export function errorPageRoutes(limit: RequestHandler, baseUrl: string): Router {
  const router = Router();
  router.get(
    '/v1/errors/:code',
    (req, res, next) => (isPerson(req) ? next() : next('route')),
    limit,
    (req, res) => {
      const code = typeof req.params.code === 'string' ? req.params.code : '';
      res.status(isErrorCode(code) ? 200 : 404);
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'");
      res.setHeader('Vary', 'Accept, Authorization');
      res.type('html').send(isErrorCode(code) ? errorCodePage(code, baseUrl) : unknownCodePage(code));
    },
  );
  // A path segment that does not decode (`%zz`) names no page: the request goes on to the edge,
  // which answers it like any other unknown path, rather than failing here as a 500.
  router.use((error: unknown, _req: Request, _res: Response, next: NextFunction) => (error instanceof URIError ? next() : next(error)));
  return router;
}
