// GET /v2/feed: the filtered, region-scoped feed of full URL profiles, by offset or cursor.
import { createRoute, type z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { feedAnswer } from '../cache';
import { feedNow, feedPage, nextLink } from '../page';
import { applyPeriod, baseFilter, historyClamped, parsePeriod, parseSelection, resolveSort } from '../params';
import { FeedPageSchema, FeedQuery } from '../schemas';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v2/feed',
    operationId: 'listFeed',
    tags: ['Feed'],
    summary: 'Filtered feed of URL profiles',
    description:
      "One item per URL, country and language (a market profile) within the key's markets (restricted keys see only theirs; category-limited " +
      'plans only URLs under their categories). Window counts (`impressions.last_*`) end at the current hour. Page by `offset`, or by ' +
      '`cursor` for stable iteration: each page returns `next_cursor` (null at the end) and a `Link: <...>; rel="next"` header; keyset ' +
      'paging makes a deep page cost the same as the first. Answers without markdown are cached for 30 s per scope and parameters. ' +
      'Every answer carries a strong `ETag`; `If-None-Match` answers 304 without spending monthly quota.',
    security: keyed,
    request: { query: FeedQuery },
    responses: {
      200: { description: 'A page of feed items.', content: { 'application/json': { schema: FeedPageSchema } } },
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
    const sort = resolveSort(q.sort_by, q.period);
    const minute = feedNow(clock.now());
    // Categories, markets and dates are checked (403/422) before any cache or data is read; the page applies them at its "now".
    const selection = parseSelection(auth, q);
    const period = parsePeriod(q);
    const filterAt = (now: Date) => applyPeriod(baseFilter(auth, selection, now), period, now);
    const binding = {
      route: 'feed',
      country: q.country.toUpperCase(),
      lang: q.lang.toLowerCase(),
      category: q.category ?? null,
      entity: q.entity ?? null,
      match: q.match,
      period: q.period ?? null,
      date_from: q.date_from ?? null,
      date_to: q.date_to ?? null,
      sort,
      order: q.sort_order,
    };
    const params = { ...binding, limit: q.limit, offset: q.offset, cursor: q.cursor ?? null };
    return await feedAnswer(c, params, minute, q.include_markdown, async () => {
      const page = await feedPage(c, {
        binding,
        sort,
        order: q.sort_order,
        limit: q.limit,
        offset: q.offset,
        cursor: q.cursor,
        markdown: q.include_markdown,
        filter: filterAt,
      });
      const body = {
        items: page.items,
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        history_clamped: historyClamped(auth, q, page.now),
        next_cursor: page.next_cursor,
      } satisfies z.output<typeof FeedPageSchema>;
      return { body, link: page.next_cursor ? nextLink(c.req.url, page.next_cursor) : null };
    });
  });
}
