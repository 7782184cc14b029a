// GET /public/platform-profile/query: publisher profiles matching a brand, name, domain, entity or keyword.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { normalizeDomain } from '../../../shared/schemas/domains';
import { invalid } from '../../../shared/http/errors';
import { errorResponses } from '../../../shared/schemas/common';
import { toMatch } from '../profile';
import { limitedRead } from '../limit';
import { SearchQuerySchema, SearchResponseSchema } from '../schemas';

const route = createRoute({
  method: 'get',
  path: '/public/platform-profile/query',
  operationId: 'publicPlatformProfileQuery',
  tags: ['Public profile check'],
  summary: 'Find profiles',
  description:
    'No key. Publisher profiles matching `q` (at least 2 characters after trimming), most relevant first, at most ' +
    "`limit`: by profile title or publisher name, by domain, by an entity named `q` in the publisher's articles, or " +
    'by `q` as words of its titles; `match` says which and how strongly. Case and accents are ignored. Cached and ' +
    'limited like the single check.',
  request: { query: SearchQuerySchema },
  responses: {
    200: { description: 'Matching profiles.', content: { 'application/json': { schema: SearchResponseSchema } } },
    304: { description: 'Not modified: the `If-None-Match` ETag is current.' },
    ...errorResponses(422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const q = query.q.trim().replace(/\s+/g, ' ');
    if ([...q].length < 2) throw invalid(['query', 'q'], 'q must have at least 2 characters after trimming', 'string_too_short');
    const domain = normalizeDomain(q);
    const rows = await limitedRead(c, 1, async (db) =>
      (await import('../queries')).searchProfiles(db, q, domain.ok ? domain.domain : null, query.limit),
    );
    return c.json({ q, results: rows.map((row) => toMatch(row, c.var.config.APP_URL)) }, 200);
  });
}
