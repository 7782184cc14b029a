// GET /v1/tracking/lists/{list_id}/matches/stream: a mention list's newly matched publications, pushed
// as its scans find them (docs/TRACKING.md "Match streams").
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { coded } from '../../../shared/http/errors';
import { capList, MAX_LIST_ITEMS } from '../../../shared/scope/list-caps';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { among, resolveMarkets, scopeOf } from '../../../shared/scope/scope';
import { LastEventIdHeader, maxSeconds, sinceMinutes, StreamEndSchema, streamResponse } from '../../../shared/streams/contract';
import { takeSlot } from '../../../shared/streams/slots';
import { eventStream } from '../../../shared/streams/stream';
import { streamBinding } from '../../../shared/streams/token';
import { DEMO } from '../../../shared/schemas/demo-ids';
import { MatchesQuery, matchTypes } from '../matches-params';
import { PublicationHitsSchema, PublicationSchema } from '../matches-schema';
import { matchesSource } from '../matches-source';
import { listNotFound, trackingProject } from '../project';
import { getList } from '../queries';
import { listIdParam } from '../schemas';

const Query = z.object({
  country: MatchesQuery.shape.country,
  lang: MatchesQuery.shape.lang,
  mention: MatchesQuery.shape.mention,
  match_types: MatchesQuery.shape.match_types,
  scope: MatchesQuery.shape.scope,
  since_minutes: sinceMinutes('Publications first matched in the last N minutes are sent first, oldest first'),
  max_seconds: maxSeconds,
});

export const MatchStreamEventSchema = z
  .object({
    publication: z.object({ list_id: z.string().uuid(), publication: PublicationSchema, hits: PublicationHitsSchema }),
    end: StreamEndSchema,
  })
  .openapi('MatchStreamEvents', {
    description:
      'The `data:` of each event, by event name: `publication` (the publication and its hits, as /matches shows them) and `end`.',
  });

const route = createRoute({
  method: 'get',
  path: '/v1/tracking/lists/{list_id}/matches/stream',
  operationId: 'streamTrackingListMatches',
  tags: ['Tracking lists'],
  summary: 'Newly matched publications of a mention list, pushed (Server-Sent Events)',
  description:
    "A `text/event-stream` of the publications the list's scans match, each sent once when its first hit under the filters is found, with " +
    "`/matches`' filters and scope. Each event: `id:` (its resume token), `event: publication`, `data:` the publication and its hits (`/matches` " +
    'shapes). `since_minutes` sends those first matched in that many minutes first. Resume, heartbeat, `retry:`, the 60-minute end, quota and ' +
    "the concurrent cap as on `/v2/live/stream`. Only for mention lists (400 `kind_mismatch` otherwise); another project's list is 404.",
  security: keyed,
  request: {
    params: z.object({ list_id: listIdParam.shape.list_id.openapi({ example: DEMO.mentionListId }) }),
    query: Query,
    headers: LastEventIdHeader,
  },
  responses: {
    200: streamResponse('publication', MatchStreamEventSchema),
    ...errorResponses(400, 401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock, store } = c.var;
    const q = c.req.valid('query');
    const list = await getList(db, trackingProject(auth), c.req.valid('param').list_id, clock.now());
    if (!list) throw listNotFound();
    if (list.kind !== 'mention') throw coded('kind_mismatch', `/matches/stream is for mention lists; this list is of kind ${list.kind}.`);
    const types = matchTypes(q.match_types);
    const keyScope = await resolveMarkets(db, scopeOf(auth), q.country);
    const watched = list.countries.map((c) => c.toUpperCase());
    const scope = watched.length ? among(keyScope.scope, watched) : keyScope.scope;
    const lang = q.lang.toLowerCase();
    const langOk = lang === 'all' || list.langs.length === 0 || list.langs.map((l) => l.toLowerCase()).includes(lang);
    const keywords = q.mention === undefined ? null : capList([q.mention].flat(), 'mention', MAX_LIST_ITEMS, 'repeated');
    // A language the list does not watch matches nothing (as /matches answers it empty): no market then.
    const filter = {
      listId: list.id,
      keyScope: langOk ? scope : among(scope, []),
      language: lang === 'all' ? null : lang,
      keywords,
      matchTypes: types,
      scope: q.scope,
    };
    const binding = await streamBinding(c, {
      route: 'matches-stream',
      list: list.id,
      country: q.country.toUpperCase(),
      lang,
      keywords,
      types,
      scope: q.scope,
    });
    const { source, start } = await matchesSource(c, { filter, binding, sinceMinutes: q.since_minutes, now: clock.now() });
    const release = await takeSlot(store, auth, crypto.randomUUID());
    return eventStream(c, source, start, release, q.max_seconds * 1000);
  });
}
