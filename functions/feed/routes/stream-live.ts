// GET /v2/live/stream: the profiles /v2/live lists, pushed as they are first seen (docs/FEED.md "Streams").
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { FeedItemSchema } from '../../../shared/schemas/feed-item';
import { takeSlot } from '../../../shared/streams/slots';
import { eventStream } from '../../../shared/streams/stream';
import { LastEventIdHeader, maxSeconds, sinceMinutes, StreamEndSchema, streamResponse } from '../../../shared/streams/contract';
import { streamBinding } from '../../../shared/streams/token';
import { parseSelection } from '../params';
import { FilterQuery } from '../schemas';
import { liveSource } from '../live-source';

const Query = z.object({
  country: FilterQuery.country,
  lang: FilterQuery.lang,
  category: FilterQuery.category,
  entity: FilterQuery.entity,
  match: FilterQuery.match,
  since_minutes: sinceMinutes('Profiles first seen in the last N minutes are sent first, oldest first'),
  max_seconds: maxSeconds,
});

export const LiveStreamEventSchema = z.object({ item: FeedItemSchema, end: StreamEndSchema }).openapi('LiveStreamEvents', {
  description: 'The `data:` of each event, by event name: `item` (a feed item, as /v2/live lists them) and `end`.',
});

const route = createRoute({
  method: 'get',
  path: '/v2/live/stream',
  operationId: 'streamLive',
  tags: ['Feed'],
  summary: 'Newly first-seen URL profiles, pushed (Server-Sent Events)',
  description:
    'A `text/event-stream` of the profiles `/v2/live` lists, each sent once as it is first seen (an ingest commits it), with the same filters, ' +
    'markets, plan categories and visibility. `since_minutes` sends the profiles first seen in that many minutes first (oldest first, as `/v2/live` ' +
    'at the opening minute lists them); 0 (default) sends only what arrives from now on. Each event: `id:` (its resume token), `event: item`, ' +
    '`data:` one feed item (schema `FeedItem`). Reconnect with the last `id:` as `Last-Event-ID` to continue exactly after that event (within 1440 ' +
    'minutes); `since_minutes` is then ignored. A comment line every 15 s (and a blank line, no event, each second between); `retry: 5000`; the server ends every stream after 60 minutes with ' +
    '`event: end` (also on revocation, a plan change or a used-up quota). Opening spends one request of the monthly quota, every further 15 ' +
    'minutes open one more; concurrent streams per key are capped by plan (README "Streams"): the next is 429 `too_many_streams`.',
  security: keyed,
  request: { query: Query, headers: LastEventIdHeader },
  responses: {
    200: streamResponse('item', LiveStreamEventSchema),
    ...errorResponses(400, 401, 402, 403, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { auth, clock, store } = c.var;
    const q = c.req.valid('query');
    const selection = parseSelection(auth, q);
    const binding = await streamBinding(c, {
      route: 'live-stream',
      country: q.country.toUpperCase(),
      lang: q.lang.toLowerCase(),
      category: q.category ?? null,
      entity: q.entity ?? null,
      match: q.match,
    });
    const source = await liveSource(c, { selection, binding, sinceMinutes: q.since_minutes, now: clock.now() });
    const release = await takeSlot(store, auth, crypto.randomUUID());
    return eventStream(c, source.source, source.start, release, q.max_seconds * 1000);
  });
}
