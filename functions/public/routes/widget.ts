// GET /public/widget.js (the embeddable card) and GET /public/widget-demo (a page that embeds it
// for profiles, a domain without one, and an unusable value, so every state is on one page).
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { capList, capNote } from '../../../shared/scope/list-caps';
import { errorResponses } from '../../../shared/schemas/common';
import { DATA_CACHE_CONTROL } from '../edge';
import { limitedRead } from '../limit';
import { serveScript } from '../script';

const scriptRoute = createRoute({
  method: 'get',
  path: '/public/widget.js',
  operationId: 'publicWidgetScript',
  tags: ['Public profile check'],
  summary: 'Profile widget script',
  description:
    // No HTML tags here: a `<script>` in a description is an injection risk for the viewers that render it (linters flag it).
    'No key. A dependency-free web component: load this script (a `script` element with `src="/public/widget.js"` and ' +
    '`defer`), then place `discover-profile` elements with the attributes `domain="example.com"`, `theme="dark"` and ' +
    '`limit="3"`. It renders the profile card ' +
    '(title, followers, up to `limit` (0-6, default 3) recent publications with images), a "no profile" state or an ' +
    'error state in a shadow DOM, and calls only this API (`api` attribute to override), without cookies.',
  responses: {
    200: { description: 'The script.', content: { 'text/javascript': { schema: z.string() } } },
    304: { description: 'Not modified.' },
    // The edge's input hygiene answers hostile query strings on every route, this one included.
    ...errorResponses(422),
  },
});

/** Most domains the demo page shows. */
export const DEMO_MAX_DOMAINS = 12;

const DemoQuerySchema = z.object({
  domains: z
    .string()
    .max(1_000)
    .optional()
    .openapi({
      description: `Comma-separated domains to show; by default two profiles, a domain without one and an invalid value.${capNote(DEMO_MAX_DOMAINS)}`,
      example: 'example.com,example.org',
    }),
});

const demoRoute = createRoute({
  method: 'get',
  path: '/public/widget-demo',
  operationId: 'publicWidgetDemo',
  tags: ['Public profile check'],
  summary: 'Widget demo page',
  description: 'No key. An HTML page embedding the widget for several domains, light and dark.',
  request: { query: DemoQuerySchema },
  responses: {
    200: { description: 'The page.', content: { 'text/html': { schema: z.string() } } },
    ...errorResponses(422, 429, 503),
  },
});

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(domains: string[]): string {
  const cards = domains
    .map(
      (d, i) =>
        `<section><h3>${escapeHtml(d)}</h3><discover-profile domain="${escapeHtml(d)}" limit="3"${i % 2 ? ' theme="dark"' : ''}></discover-profile></section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Discover profile widget demo</title>
<style>body{font:15px system-ui,sans-serif;margin:24px;background:#f6f8fa}main{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:20px}h3{font-size:13px;color:#59636e;margin:0 0 6px}</style>
</head><body>
<h1>Discover profile widget</h1>
<p>Embed: <code>&lt;script src="/public/widget.js" defer&gt;&lt;/script&gt;</code> and <code>&lt;discover-profile domain="example.com"&gt;&lt;/discover-profile&gt;</code>.</p>
<main>
${cards}
</main>
<script src="/public/widget.js" defer></script>
</body></html>`;
}

export function register(app: App) {
  app.openapi(scriptRoute, serveScript);

  app.openapi(demoRoute, async (c) => {
    const raw = c.req.valid('query').domains;
    const requested =
      raw === undefined
        ? undefined
        : capList(
            raw
              .split(',')
              .map((d) => d.trim())
              .filter(Boolean),
            'domains',
            DEMO_MAX_DOMAINS,
            "separated by ','",
          );
    const domains = await limitedRead(c, 1, async (db) =>
      requested?.length ? requested : [...(await (await import('../queries')).demoDomains(db)), 'not a domain'],
    );
    return c.html(page(domains), 200, { 'Cache-Control': DATA_CACHE_CONTROL });
  });
}
