// GET /v2/feed/{url_id}: every market profile of one URL the key may see, as a bare array.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { notFound } from '../../../shared/http/errors';
import { slideIfBehind, windowEnd } from '../../../shared/feed/windows';
import { DAY_MS as DAY } from '../../../shared/time/windows';
import { errorResponses, keyed, uuidParam } from '../../../shared/schemas/common';
import { scopeOf, withCountry } from '../../../shared/scope/scope';
import { loadUrlProfiles } from '../items';
import { ProfileQuery, ProfilesSchema } from '../schemas';
import { toFeedItem } from '../serialize';
import { DEMO } from '../../../shared/schemas/demo-ids';

const route = createRoute({
  method: 'get',
  path: '/v2/feed/{url_id}',
  operationId: 'getFeedProfiles',
  tags: ['Feed'],
  summary: 'Every market profile of one URL',
  description:
    "One feed item per country and language the URL surfaced in, within the key's markets, ordered by country then language. " +
    "`include_markdown` defaults to true here. A URL that is unknown, outside the key's markets or outside the plan's categories is 404.",
  security: keyed,
  request: {
    params: z.object({ url_id: uuidParam('The URL id (`url_id`; `id` in v1 article payloads).').openapi({ example: DEMO.urlId }) }),
    query: ProfileQuery,
  },
  responses: {
    200: { description: "The URL's visible market profiles.", content: { 'application/json': { schema: ProfilesSchema } } },
    304: { description: '`If-None-Match` matched the current `ETag`: no body, no monthly quota spent.' },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock, config } = c.var;
    const { url_id } = c.req.valid('param');
    const { include_markdown } = c.req.valid('query');
    const end = windowEnd(clock.now());
    await slideIfBehind(db, end);
    const today = Math.floor((end.getTime() - 1) / DAY) * DAY;
    const rows = await loadUrlProfiles(db, withCountry(scopeOf(auth), 'all'), url_id, {
      end,
      dayStart: new Date(today - 29 * DAY),
      markdown: include_markdown,
    });
    // Invisible answers exactly like unknown (docs/DECISIONS.md "Visibility is uniform").
    if (rows.length === 0) throw notFound(`URL ${url_id} not found`);
    const now = clock.now();
    return c.json(
      rows.map((r) => toFeedItem(r, config.APP_URL, now)),
      200,
    );
  });
}
