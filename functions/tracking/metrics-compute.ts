// Builds the metrics body (scope, summary and rows; docs/TRACKING.md "Metrics rows") for one page of a list's items.
// Pure in (db, inputs): the request path and the queue consumer both call it.
import type { Db } from '../../shared/db/client';
import { cabinetUrl, iso, round } from '../../shared/format';
import { buckets, type Grain } from '../../shared/rollups/buckets';
import { distinctByKey, publicationsSeries, seriesByKey, withCoverage, type KeyDistinct } from '../../shared/rollups/read';
import { lifespans, relatedEntities, siblingCategories, trendDailyHistory } from './facts';
import { forecastTrend } from './forecast';
import { DIMENSION_OF, pageKeys, resolvedItems } from './items';
import type { ListRow } from './queries';
import { scopeBody, type AggregateWindow } from '../../shared/scope/window-scope';
import { DAY_MS } from '../../shared/time/windows';

export interface MetricsInput {
  list: ListRow;
  scope: AggregateWindow;
  grain: Grain;
  limit: number;
  offset: number;
  appUrl: string;
  now: Date;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const deltaPct = (cur: number, prev: number) => (prev > 0 ? round(((cur - prev) / prev) * 100, 1) : null);
const NONE: KeyDistinct = { publications: 0, publishers: 0, trends: 0, lastSeen: null };

export async function computeMetrics(db: Db, input: MetricsInput) {
  const { list, scope, grain } = input;
  // Coverage (known by now on the request path: coverage.ts) chooses the path of five reads below.
  // They name the page's keys in SQL, so they run beside the statement that resolves the page.
  const dim = await withCoverage(db, {
    kind: DIMENSION_OF[list.kind],
    keys: pageKeys(list, input.limit, input.offset),
    keyScope: scope.keyScope,
    language: scope.language,
  });
  const width = buckets(scope.from, scope.to, grain).length;
  const zeros = () => Array.from({ length: width }, () => 0);

  const [items, cur, prev, distinct, pubs, pageDistinct, lives, related, history] = await Promise.all([
    resolvedItems(db, list, input.limit, input.offset),
    seriesByKey(db, dim, scope.from, scope.to, grain),
    seriesByKey(db, dim, scope.prevFrom, scope.prevTo, 'day'),
    distinctByKey(db, dim, scope.from, scope.to),
    publicationsSeries(db, dim, scope.from, scope.to, grain),
    distinctByKey(db, dim, scope.from, scope.to, { across: true }),
    list.kind === 'entity' || list.kind === 'category' ? lifespans(db, dim, scope.from, scope.to) : undefined,
    list.kind === 'entity' || list.kind === 'publisher'
      ? relatedEntities(db, dim, scope.from, scope.to)
      : list.kind === 'category'
        ? siblingCategories(db, dim)
        : undefined,
    list.kind === 'trend' ? trendDailyHistory(db, dim, startOfDay(input.now), 14) : undefined,
  ]);

  const keys = [...new Set(items.map((i) => i.dimKey).filter((k): k is string => k !== null))];
  const totals = (key: string | null) => {
    const series = key ? cur.get(key) : undefined;
    const impressions = series ? sum(series.impressions) : 0;
    const previous = key && prev.get(key) ? sum(prev.get(key)!.impressions) : 0;
    return { series, impressions, previous, positionSum: series ? sum(series.positionSum) : 0 };
  };
  const ranked = (pick: 'impressions' | 'previous') =>
    new Map(
      keys
        .map((k) => [k, totals(k)[pick]] as const)
        .filter(([, v]) => v > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([k], i) => [k, i + 1]),
    );
  const rankNow = ranked('impressions');
  const rankBefore = ranked('previous');

  const rows = items.map((it) => {
    const t = totals(it.dimKey);
    const d = (it.dimKey && distinct.get(it.dimKey)) || NONE;
    const active = t.impressions > 0;
    const common = {
      key: it.item.key,
      name: it.name,
      impressions: t.impressions,
      publications_count: d.publications,
      impressions_spark: t.series?.impressions ?? zeros(),
      // Roll-ups keep whole hours: the running hour's end would be after the window (and now).
      last_seen: iso(d.lastSeen && d.lastSeen > scope.to ? scope.to : d.lastSeen),
    };
    if (list.kind === 'mention') {
      // A term ingested without a match type (shared/ingest/format/records-tenants.ts) has none to report: the field is
      // left out, as the schema's optional `match_type` allows, instead of a null it does not.
      return {
        ...common,
        key: `${it.item.raw_text}|${it.item.match_type}`,
        term_id: it.item.id,
        match_type: it.item.match_type ?? undefined,
      };
    }
    const rankDelta = active && it.dimKey && rankBefore.has(it.dimKey) ? rankBefore.get(it.dimKey)! - rankNow.get(it.dimKey)! : null;
    const base = {
      ...common,
      resolved_id: it.resolvedId,
      avg_position: active ? round(t.positionSum / t.impressions, 2) : null,
      delta_pct: active ? deltaPct(t.impressions, t.previous) : null,
      publications_spark: (it.dimKey && pubs.get(it.dimKey)) || zeros(),
    };
    const life = it.dimKey ? lives?.get(it.dimKey) : undefined;
    const names = (it.dimKey && related?.get(it.dimKey)) || [];
    switch (list.kind) {
      case 'entity':
      case 'category':
        return {
          ...base,
          ...(list.kind === 'entity' && { resolved_type: it.resolvedType }),
          publishers_count: d.publishers,
          trends_count: d.trends,
          rank_delta: rankDelta,
          lived_hours: life ? round(life.livedHours, 1) : null,
          avg_lifespan_hours: life ? round(life.avgLifespanHours, 1) : null,
          related: active ? names : [],
        };
      case 'publisher':
        return { ...base, trends_count: d.trends, rank_delta: rankDelta, related: active ? names : [] };
      default: {
        // The trend kind, the last one left.
        const daily = (it.dimKey && history?.get(it.dimKey)) || Array.from({ length: 14 }, () => 0);
        return {
          ...base,
          state: it.state,
          publishers_count: d.publishers,
          forecast: forecastTrend(daily, sum(daily), input.now),
          cabinet_url: cabinetUrl(input.appUrl, 'trend', it.item.key),
        };
      }
    }
  });

  const pageImpressions = sum(rows.map((r) => r.impressions));
  const pagePrevious = sum(items.map((it) => totals(it.dimKey).previous));
  const page = pageDistinct.get('*') ?? NONE;
  const sparkSum = (pick: (k: string) => number[] | undefined) => zeros().map((_, i) => sum(keys.map((k) => pick(k)?.[i] ?? 0)));
  const summary =
    list.kind === 'mention'
      ? {
          scope: 'page' as const,
          publications_count: page.publications,
          impressions: pageImpressions,
          timeseries: buckets(scope.from, scope.to, grain).map((b, i) => ({
            ts: iso(b.ts),
            urls: sum(keys.map((k) => pubs.get(k)?.[i] ?? 0)),
            impressions: sum(keys.map((k) => cur.get(k)?.impressions[i] ?? 0)),
          })),
        }
      : {
          scope: 'page' as const,
          impressions: pageImpressions,
          publications_count: page.publications,
          publishers_count: page.publishers,
          trends_count: page.trends,
          delta_pct: deltaPct(pageImpressions, pagePrevious),
          impressions_spark: sparkSum((k) => cur.get(k)?.impressions),
        };

  return {
    list_id: list.id,
    kind: list.kind,
    scope: scopeBody(scope, { grain }),
    items: rows,
    summary,
    total: list.item_count,
    limit: input.limit,
    offset: input.offset,
  };
}

const startOfDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
