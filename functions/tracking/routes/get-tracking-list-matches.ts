// GET /v1/tracking/lists/{list_id}/matches: publications matched by a mention list, newest first.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { coded, invalid } from '../../../shared/http/errors';
import { exportable } from '../../../shared/http/exports';
import { iso } from '../../../shared/format';
import { historyWindow } from '../../../shared/scope/window-scope';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { among, marketList, resolveMarkets, scopeOf } from '../../../shared/scope/scope';
import { readMatches } from '../matches-query';
import { MatchesSchema, type Mention } from '../matches-schema';
import { listNotFound, trackingProject } from '../project';
import { getList } from '../queries';
import { listIdParam } from '../schemas';
import { MatchesQuery, matchTypes } from '../matches-params';
import { publicationOf } from '../serialize';
import { DEMO } from '../../../shared/schemas/demo-ids';
import { capList, MAX_LIST_ITEMS } from '../../../shared/scope/list-caps';
import { DAY_MS } from '../../../shared/time/windows';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/tracking/lists/{list_id}/matches',
    operationId: 'getTrackingListMatches',
    tags: ['Tracking lists'],
    summary: 'Matches of a mention list',
    description:
      "Publications matched by the list's terms (found by its scans), newest first, with every hit keyed by publication id. " +
      'Only for mention lists (400 `kind_mismatch` otherwise). No offset, no total.',
    security: keyed,
    // The example is the demo's mention list: /matches reads mention lists only.
    request: { params: z.object({ list_id: listIdParam.shape.list_id.openapi({ example: DEMO.mentionListId }) }), query: MatchesQuery },
    responses: {
      200: { description: 'Matches.', content: { 'application/json': { schema: MatchesSchema } } },
      ...errorResponses(400, 401, 402, 403, 404, 422, 429, 503),
    },
  }),
  'publications',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock, config } = c.var;
    const query = c.req.valid('query');
    const list = await getList(db, trackingProject(auth), c.req.valid('param').list_id, clock.now());
    if (!list) throw listNotFound();
    if (list.kind !== 'mention') throw coded('kind_mismatch', `/matches is for mention lists; this list is of kind ${list.kind}.`);
    const types = matchTypes(query.match_types);
    const now = clock.now();
    const from = query.date_from ? new Date(query.date_from) : new Date(now.getTime() - auth.historyDays * DAY_MS);
    const requestedTo = query.date_to ? new Date(query.date_to) : now;
    // As every other window route: an inverted window is a validation error, not an empty answer.
    if (query.date_from && requestedTo <= from) throw invalid(['query', 'date_to'], 'date_to must be after date_from');
    const clamp = historyWindow(auth, from, requestedTo, now);
    const to = clamp.to;
    const keyScope = await resolveMarkets(db, scopeOf(auth), query.country);
    const watched = list.countries.map((c) => c.toUpperCase());
    const scope = watched.length ? among(keyScope.scope, watched) : keyScope.scope;
    const markets = marketList(scope);
    const lang = query.lang.toLowerCase();
    const langOk = lang === 'all' || list.langs.length === 0 || list.langs.map((l) => l.toLowerCase()).includes(lang);
    const keywords = query.mention === undefined ? null : capList([query.mention].flat(), 'mention', MAX_LIST_ITEMS, 'repeated');
    const { publications, hits } =
      markets.length && langOk
        ? await readMatches(db, {
            listId: list.id,
            keyScope: scope,
            language: lang === 'all' ? null : lang,
            from: clamp.from,
            to,
            keywords,
            matchTypes: types,
            scope: query.scope,
            q: query.q ?? null,
            limit: query.limit,
          })
        : { publications: [], hits: [] };

    const byUrl: Record<string, { count: number; mentions: Mention[] }> = {};
    const perKeyword: Record<string, number> = {};
    for (const h of hits) {
      const entry = (byUrl[h.url_id] ??= { count: 0, mentions: [] });
      entry.count++;
      entry.mentions.push({
        term_id: h.term_id,
        raw_text: h.raw_text,
        match_type: h.match_type,
        field: h.field,
        matched_text: h.matched_text,
        snippet: h.snippet,
      });
      perKeyword[h.raw_text] = (perKeyword[h.raw_text] ?? 0) + 1;
    }
    return c.json(
      {
        list_id: list.id,
        kind: list.kind,
        scope: {
          country: keyScope.country,
          markets: markets.map((m) => m.toLowerCase()),
          lang,
          from: iso(clamp.from),
          to: iso(to),
          history_days: clamp.historyDays,
          clamped: clamp.clamped,
        },
        limit: query.limit,
        publications: publications.map((p) => publicationOf(p, config.APP_URL, byUrl[p.id]?.mentions[0]?.snippet ?? '')),
        hits: byUrl,
        summary: { matches: hits.length, publications: publications.length, mentions: perKeyword },
      },
      200,
    );
  });
}
