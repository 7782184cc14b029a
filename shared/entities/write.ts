// Keeps the entity read models exact at ingest (docs/ENTITIES.md):
// - entity_hours (and entity_days, the same per UTC day): per market, language ('*' = all) and UTC hour, the entity's mentions (profiles of
//   its articles first seen in that hour) and articles (first appearance in the market, or market
//   and language). A URL's contribution is (its entities) x (its profiles), so, like dim_hours,
//   profile changes are applied to the pre-batch memberships (url_dimensions) while observations are
//   written, and membership changes to the post-batch profiles after syncDimensions: together
//   new(M) x new(P) - old(M) x old(P).
// - entity_best: each entity's best occurrence per market, over the articles seen anywhere ('+') and
//   over all ('*'); entity_category_best
//   the same per top-level category of the articles (category-limited plans). A max is not
//   invertible, so entities whose stored best lies on a rewritten article, or that lost a link, are
//   recomputed whole; every other touched occurrence is merged in ("better" replaces).
import { ENTITY_ALL, ENTITY_SEEN } from '../db/schema/entities';
import type { Queryable } from '../db/queryable';
import { addLinkTopKeys, addTopKeys, REBUILD_TOPS, refreshTops, type TopKeys } from './write-tops';

/** The profiles of `urls` as entity_hours contributions: hour of first sight, first in the market. */
const PROFILE_FIRSTS = (urls?: string) => `
  SELECT url_id, country, language, date_trunc('hour', first_seen) AS hour,
    (row_number() OVER (PARTITION BY url_id, country ORDER BY first_seen, language) = 1)::int AS first_in_country
  FROM url_profiles ${urls ? `WHERE url_id = ANY(${urls})` : ''}`;

/**
 * Folds (entity_id, country, language, hour, mentions, firsts) rows into entity_hours and
 * entity_days, per language and for '*'; returns the buckets that fell back to zero.
 */
const FOLD = (contrib: string) => `
WITH c AS (${contrib}),
agg AS MATERIALIZED (
  SELECT country, language, hour, entity_id, sum(mentions)::int AS mentions, sum(mentions)::int AS articles FROM c
  GROUP BY country, language, hour, entity_id
  UNION ALL
  SELECT country, '${ENTITY_ALL}', hour, entity_id, sum(mentions)::int, sum(firsts)::int FROM c
  GROUP BY country, hour, entity_id),
hours AS (
  INSERT INTO entity_hours (country, language, hour, entity_id, mentions, articles)
  SELECT * FROM agg WHERE mentions <> 0 OR articles <> 0
  ON CONFLICT (country, language, hour, entity_id) DO UPDATE
    SET mentions = entity_hours.mentions + excluded.mentions, articles = entity_hours.articles + excluded.articles
  RETURNING country, language, hour::text AS at, entity_id, mentions, articles),
days AS (
  INSERT INTO entity_days (country, language, day, entity_id, mentions, articles)
  SELECT country, language, (hour AT TIME ZONE 'UTC')::date, entity_id, sum(mentions)::int, sum(articles)::int FROM agg
  GROUP BY 1, 2, 3, 4 HAVING sum(mentions) <> 0 OR sum(articles) <> 0
  ON CONFLICT (country, language, day, entity_id) DO UPDATE
    SET mentions = entity_days.mentions + excluded.mentions, articles = entity_days.articles + excluded.articles
  RETURNING country, language, day::text AS at, entity_id, mentions, articles)
SELECT 'hours' AS tbl, country, language, at, entity_id FROM hours WHERE mentions = 0 AND articles = 0
UNION ALL SELECT 'days', country, language, at, entity_id FROM days WHERE mentions = 0 AND articles = 0
-- Every bucket a contribution touches, even at a net zero count: its top mention may have changed.
UNION ALL SELECT DISTINCT 'tops', country, NULL, extract(epoch FROM hour)::bigint::text, entity_id FROM c`;

// Buckets that fell back to zero are removed, so that the incremental tables equal a rebuild.
const DROP_ZERO = (into: 'hours' | 'days') => `DELETE FROM entity_${into} t
  USING unnest($1::text[], $2::text[], $3::${into === 'hours' ? 'timestamptz' : 'date'}[], $4::uuid[]) AS z(country, language, at, entity_id)
  WHERE (t.country, t.language, t.${into === 'hours' ? 'hour' : 'day'}, t.entity_id) = (z.country, z.language, z.at, z.entity_id)
    AND t.mentions = 0 AND t.articles = 0`;

interface ZeroRow {
  tbl: 'hours' | 'days' | 'tops';
  country: string;
  language: string;
  at: string;
  entity_id: string;
}

async function fold(db: Queryable, sql: string, params: unknown[], tops: TopKeys): Promise<void> {
  const { rows } = await db.query<ZeroRow>(FOLD(sql), params);
  addTopKeys(
    tops,
    rows.filter((r) => r.tbl === 'tops'),
  );
  for (const into of ['hours', 'days'] as const) {
    const zero = rows.filter((r) => r.tbl === into);
    if (zero.length) {
      await db.query(DROP_ZERO(into), [
        zero.map((r) => r.country),
        zero.map((r) => r.language),
        zero.map((r) => r.at),
        zero.map((r) => r.entity_id),
      ]);
    }
  }
}

interface ProfileFirst {
  url_id: string;
  country: string;
  language: string;
  hour: Date;
  first_in_country: number;
}

const profileKey = (p: ProfileFirst) => `${p.url_id}|${p.country}|${p.language}|${new Date(p.hour).toISOString()}|${p.first_in_country}`;

/**
 * Call before the URLs' profiles are recomputed; `apply()` afterwards adds (new - old) profile
 * contributions to entity_hours for the URLs' current (pre-sync) entities.
 */
export async function trackProfileFirsts(db: Queryable, urls: string[], tops: TopKeys): Promise<{ apply(): Promise<void> }> {
  const read = async () => (await db.query<ProfileFirst>(PROFILE_FIRSTS('$1::uuid[]'), [urls])).rows;
  const before = await read();
  return {
    async apply() {
      const delta = new Map<string, { p: ProfileFirst; sign: number }>();
      for (const [rows, sign] of [
        [before, -1],
        [await read(), 1],
      ] as const) {
        for (const p of rows) {
          const key = profileKey(p);
          const d = delta.get(key) ?? { p, sign: 0 };
          d.sign += sign;
          delta.set(key, d);
        }
      }
      const changed = [...delta.values()].filter((d) => d.sign !== 0);
      if (changed.length === 0) return;
      const urlSet = [...new Set(changed.map((d) => d.p.url_id))];
      await fold(
        db,
        `SELECT ud.key::uuid AS entity_id, d.country, d.language, d.hour, d.sign AS mentions, d.sign * d.first_in_country AS firsts
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::int[], $6::int[])
           AS d(url_id, country, language, hour, first_in_country, sign)
         JOIN url_dimensions ud ON ud.kind = 'entity' AND ud.url_id = d.url_id
         WHERE ud.url_id = ANY($7::uuid[])`,
        [
          changed.map((d) => d.p.url_id),
          changed.map((d) => d.p.country),
          changed.map((d) => d.p.language),
          changed.map((d) => new Date(d.p.hour).toISOString()),
          changed.map((d) => d.p.first_in_country),
          changed.map((d) => d.sign),
          urlSet,
        ],
        tops,
      );
    },
  };
}

export interface EntityLinkChange {
  kind: string;
  key: string;
  url_id: string;
  sign: number;
}

/** Adds (sign x) the current profiles of URLs that joined (left) an entity. */
async function applyLinkChanges(db: Queryable, changes: EntityLinkChange[], tops: TopKeys): Promise<void> {
  if (changes.length === 0) return;
  await fold(
    db,
    `SELECT c.entity_id, p.country, p.language, p.hour, c.sign AS mentions, c.sign * p.first_in_country AS firsts
     FROM unnest($1::uuid[], $2::uuid[], $3::int[]) AS c(entity_id, url_id, sign)
     JOIN (${PROFILE_FIRSTS('$4::uuid[]')}) p ON p.url_id = c.url_id`,
    [changes.map((c) => c.key), changes.map((c) => c.url_id), changes.map((c) => c.sign), [...new Set(changes.map((c) => c.url_id))]],
    tops,
  );
}

/**
 * Occurrences of the links in `links` (article_entities rows; `all`: the whole table), per market, over
 * the articles seen in any market ('+') and over all ('*').
 */
const SCOPED = (links: string, all: boolean) => `
  SELECT l.entity_id, '${ENTITY_ALL}'::text AS country, l.url_id, l.unified_score, l.embedding_similarity, l.source FROM ${links} l
  UNION ALL
  SELECT l.entity_id, '${ENTITY_SEEN}', l.url_id, l.unified_score, l.embedding_similarity, l.source FROM ${links} l
  WHERE EXISTS (SELECT 1 FROM url_profiles p WHERE p.url_id = l.url_id)
  UNION ALL
  SELECT l.entity_id, p.country, l.url_id, l.unified_score, l.embedding_similarity, l.source FROM ${links} l
  JOIN (SELECT DISTINCT url_id, country FROM url_profiles ${all ? '' : `WHERE url_id IN (SELECT url_id FROM ${links})`}) p ON p.url_id = l.url_id`;

/** The same occurrences once per top-level category of their article (article_tops): an article without categories has none. */
const SCOPED_BY_CATEGORY = (links: string, all: boolean) => `
  SELECT s.entity_id, s.country, c.category, s.url_id, s.unified_score, s.embedding_similarity, s.source
  FROM (${SCOPED(links, all)}) s JOIN article_tops t ON t.url_id = s.url_id CROSS JOIN LATERAL unnest(t.top_categories) AS c(category)`;

/** The best occurrence per entity and market: score, then similarity, descending; then url_id. */
export const BEST_OF = (links: string, all = false) => `
  SELECT DISTINCT ON (entity_id, country) entity_id, country, url_id, unified_score, embedding_similarity, source
  FROM (${SCOPED(links, all)}) s
  ORDER BY entity_id, country, unified_score DESC, embedding_similarity DESC, url_id`;

/** The best occurrence per entity, market and top-level category (entity_category_best), in the same order. */
const CATEGORY_BEST_OF = (links: string, all = false) => `
  SELECT DISTINCT ON (entity_id, country, category) entity_id, country, category, url_id, unified_score, embedding_similarity, source
  FROM (${SCOPED_BY_CATEGORY(links, all)}) s
  ORDER BY entity_id, country, category, unified_score DESC, embedding_similarity DESC, url_id`;

const BETTER = (table: string) => `(excluded.unified_score, excluded.embedding_similarity, ${table}.url_id) >
  (${table}.unified_score, ${table}.embedding_similarity, excluded.url_id)`;

const RECOMPUTE_BEST = [
  `DELETE FROM entity_best WHERE entity_id = ANY($1::uuid[])`,
  `DELETE FROM entity_category_best WHERE entity_id = ANY($1::uuid[])`,
  `WITH links AS MATERIALIZED (SELECT * FROM article_entities WHERE entity_id = ANY($1::uuid[]))
   INSERT INTO entity_best ${BEST_OF('links')}`,
  `WITH links AS MATERIALIZED (SELECT * FROM article_entities WHERE entity_id = ANY($1::uuid[]))
   INSERT INTO entity_category_best ${CATEGORY_BEST_OF('links')}`,
];

const SET_BEST = `url_id = excluded.url_id, unified_score = excluded.unified_score,
  embedding_similarity = excluded.embedding_similarity, source = excluded.source`;

const MERGE_BEST = [
  `WITH links AS MATERIALIZED (SELECT * FROM article_entities WHERE url_id = ANY($1::uuid[]))
   INSERT INTO entity_best ${BEST_OF('links')}
   ON CONFLICT (entity_id, country) DO UPDATE SET ${SET_BEST} WHERE ${BETTER('entity_best')}`,
  `WITH links AS MATERIALIZED (SELECT * FROM article_entities WHERE url_id = ANY($1::uuid[]))
   INSERT INTO entity_category_best ${CATEGORY_BEST_OF('links')}
   ON CONFLICT (entity_id, country, category) DO UPDATE SET ${SET_BEST} WHERE ${BETTER('entity_category_best')}`,
];

/**
 * After syncDimensions: folds the entity link changes into entity_hours and brings entity_best up
 * to date for the batch's articles (`rewritten`: their links may have changed) and the URLs whose
 * observations changed (`observed`: they may have reached new markets).
 */
export async function refreshEntities(
  db: Queryable,
  changes: EntityLinkChange[],
  rewritten: string[],
  observed: string[],
  tops: TopKeys,
): Promise<void> {
  const links = changes.filter((c) => c.kind === 'entity');
  await applyLinkChanges(db, links, tops);
  await addLinkTopKeys(db, tops, rewritten);
  await refreshTops(db, tops);
  const lost = links.filter((c) => c.sign < 0).map((c) => c.key);
  // A rewritten article may also have left a top-level category: a best it held there is stale too.
  const { rows } = rewritten.length
    ? await db.query<{ entity_id: string }>(
        `SELECT entity_id FROM entity_best WHERE url_id = ANY($1::uuid[]) UNION SELECT entity_id FROM entity_category_best WHERE url_id = ANY($1::uuid[])`,
        [rewritten],
      )
    : { rows: [] };
  const stale = [...new Set([...lost, ...rows.map((r) => r.entity_id)])];
  if (stale.length) for (const sql of RECOMPUTE_BEST) await db.query(sql, [stale]);
  const touched = [...new Set([...rewritten, ...observed])];
  if (touched.length) for (const sql of MERGE_BEST) await db.query(sql, [touched]);
}

/**
 * Set-based rebuild of the entity read models but the trending tops (REBUILD_TOPS), from
 * article_entities, article_tops and url_profiles.
 */
export const REBUILD_ENTITY_MODELS = [
  `TRUNCATE entity_best, entity_category_best, entity_hours, entity_days`,
  `INSERT INTO entity_best ${BEST_OF('article_entities', true)}`,
  `INSERT INTO entity_category_best ${CATEGORY_BEST_OF('article_entities', true)}`,
  `INSERT INTO entity_hours (country, language, hour, entity_id, mentions, articles)
   WITH c AS (
     SELECT ae.entity_id, p.country, p.language, p.hour, p.first_in_country AS firsts
     FROM (${PROFILE_FIRSTS()}) p JOIN article_entities ae ON ae.url_id = p.url_id)
   SELECT country, language, hour, entity_id, count(*)::int, count(*)::int FROM c GROUP BY country, language, hour, entity_id
   UNION ALL
   SELECT country, '${ENTITY_ALL}', hour, entity_id, count(*)::int, sum(firsts)::int FROM c GROUP BY country, hour, entity_id`,
  `INSERT INTO entity_days (country, language, day, entity_id, mentions, articles)
   SELECT country, language, (hour AT TIME ZONE 'UTC')::date, entity_id, sum(mentions)::int, sum(articles)::int FROM entity_hours
   GROUP BY 1, 2, 3, 4`,
  `ANALYZE entity_best, entity_category_best, entity_hours, entity_days`,
];

/** Set-based rebuild of every entity read model. */
export const REBUILD_ENTITIES = [...REBUILD_ENTITY_MODELS, ...REBUILD_TOPS];
