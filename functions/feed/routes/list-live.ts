// GET /v2/live: profiles first seen in the last `since_minutes`, newest first.
import { createRoute, type z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { iso } from '../../../shared/format';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { feedAnswer } from '../cache';
import { feedNow, feedPage, nextLink } from '../page';
import { baseFilter, parseSelection } from '../params';
import { LivePageSchema, LiveQuery } from '../schemas';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v2/live',
    operationId: 'listLive',
    tags: ['Feed'],
    summary: 'Newly first-seen URL profiles',
    description:
      'Profiles whose first hour with impressions starts at or after `since` (= now - `since_minutes`), always by `first_seen` descending ' +
      '(ties by url_id, country, language). Filters, scope, paging (offset or cursor), caching and ETags as on `/v2/feed`.',
    security: keyed,
    request: { query: LiveQuery },
    responses: {
      200: { description: 'A page of newly seen items.', content: { 'application/json': { schema: LivePageSchema } } },
      304: { description: '`If-None-Match` matched the current `ETag`: no body, no monthly quota spent.' },
      ...errorResponses(400, 401, 402, 403, 422, 429, 503),
    },
  }),
  'items',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { auth, clock } = c.var;
    const q = c.req.valid('query');
    const minute = feedNow(clock.now());
    const since = (now: Date) => new Date(now.getTime() - q.since_minutes * 60_000);
    // Categories and markets are checked (403/422) before any cache or data is read; the page applies them at its "now".
    const selection = parseSelection(auth, q);
    // first_seen >= since implies last_seen > since, which lies inside any plan's history (>= 30 days), so
    // the history floor is dropped: the count is then an index-only range of the first_seen index.
    const filterAt = (now: Date) => ({ ...baseFilter(auth, selection, now), seenAfter: null, firstSeenFrom: since(now) });
    const binding = {
      route: 'live',
      country: q.country.toUpperCase(),
      lang: q.lang.toLowerCase(),
      category: q.category ?? null,
      entity: q.entity ?? null,
      match: q.match,
      since_minutes: q.since_minutes,
    };
    const params = { ...binding, limit: q.limit, offset: q.offset, cursor: q.cursor ?? null };
    return await feedAnswer(c, params, minute, q.include_markdown, async () => {
      const page = await feedPage(c, {
        binding,
        sort: 'first_seen',
        order: 'desc',
        limit: q.limit,
        offset: q.offset,
        cursor: q.cursor,
        markdown: q.include_markdown,
        filter: filterAt,
      });
      const body = {
        since: iso(since(page.now)),
        items: page.items,
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        next_cursor: page.next_cursor,
      } satisfies z.output<typeof LivePageSchema>;
      return { body, link: page.next_cursor ? nextLink(c.req.url, page.next_cursor) : null };
    });
  });
}
