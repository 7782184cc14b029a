// GET /v{1,2}/geo/languages: every language, by code; not region-filtered.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import type { Mount } from '../../../shared/http/route-table';
import { referenceRead } from '../../../shared/cache/reference';
import { errorResponses, keyed, queryBool } from '../../../shared/schemas/common';
import { listLanguages } from '../queries';
import { LanguageSchema } from '../schemas';

const route = (version: string) =>
  createRoute({
    method: 'get',
    path: '/geo/languages',
    operationId: `${version}GeoListLanguages`,
    tags: ['Geo'],
    summary: 'List languages',
    description: 'Sorted by code ascending; not region-filtered. `with_article_counts` adds the exact `article_count` (slower).',
    security: keyed,
    request: { query: z.object({ with_article_counts: queryBool('Add the exact `article_count`.') }) },
    responses: {
      200: {
        description: 'Languages.',
        content: { 'application/json': { schema: z.object({ languages: z.array(LanguageSchema) }).openapi('LanguageList') } },
      },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  });

export function register(app: App, { version }: Mount) {
  app.openapi(route(version), async (c) => {
    const withCounts = c.req.valid('query').with_article_counts;
    // Not region-filtered: the same answer for every key.
    return referenceRead(c, 'geo.languages', null, { withCounts }, async () => {
      const rows = await listLanguages(c.var.db, withCounts);
      const languages = rows.map(({ article_count, ...row }) => (withCounts ? { ...row, article_count: article_count ?? 0 } : row));
      return { languages };
    });
  });
}
