// The trending-entities ranking as a shared single-flight aggregate: computed inline, or by the jobs
// consumer when a category-limited plan's raw scan is over the inline budget (functions/jobs/aggregates.ts).
import type { AggregateKind } from '../../shared/aggregates/kind';
import type { Db } from '../../shared/db/client';
import { rankTrending, rankTrendingInPlan, type TrendingRequest } from './trending-queries';
import { aggregateKinds } from '../../shared/cache/namespaces';

/**
 * The ranking with each entity's top article: what every key allowed the region gets, or, for a
 * category-limited plan, what its categories' articles make (ranks and `top_article` alike).
 */
export async function trendingEntities(db: Db, request: TrendingRequest, planCategories: string[] | null) {
  const ranked = planCategories === null ? await rankTrending(db, request) : await rankTrendingInPlan(db, request, planCategories);
  return ranked.flatMap((r) => {
    // Every ranked entity has a mention in the window, hence a top article; a row without one
    // would mean the roll-ups disagree, and is left out rather than invented.
    if (r.top_url_id === null) return [];
    return [
      {
        name: r.name,
        kg_id: r.kg_id,
        kg_name: r.kg_name,
        entity_types: r.entity_types,
        mentions_in_period: r.mentions,
        articles_in_period: r.articles,
        top_article: { url_id: r.top_url_id, title: r.top_title ?? '', domain: r.top_domain ?? '' },
      },
    ];
  });
}

/** Plan categories are part of the question: a category-limited plan never shares another's answer. */
export type CachedTrendingRequest = Omit<TrendingRequest, 'from' | 'to'> & { from: string; to: string; planCategories: string[] | null };

/**
 * Cached for a minute and computed once for concurrent identical misses (shared single flight). The
 * window's hours are part of the request, so the answer moves on with the clock; ingest within the
 * minute shows after it.
 */
export const trendingAggregate = {
  name: aggregateKinds.entitiesTrending.name,
  ttlSeconds: aggregateKinds.entitiesTrending.seconds,
  warm: false,
  compute: ({ db }, { planCategories, ...r }) => trendingEntities(db, { ...r, from: new Date(r.from), to: new Date(r.to) }, planCategories),
} satisfies AggregateKind<CachedTrendingRequest>;
