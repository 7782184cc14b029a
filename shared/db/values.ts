// The value sets of the schema's text columns that routes validate against. Kept apart from the
// table definitions (shared/db/schema/*), which import drizzle: a route that only needs these lists
// evaluates no table and no drizzle (docs/PERFORMANCE.md, "The first request").

export const PLANS = ['start', 'grow', 'scale', 'enterprise'] as const;
export const LIST_KINDS = ['entity', 'category', 'publisher', 'trend', 'mention'] as const;
export const MATCH_TYPES = ['broad', 'phrase', 'exact'] as const;
/** Where a mention matched (mention_matches.field). */
export const MATCH_FIELDS = ['title', 'body'] as const;
export type ListKind = (typeof LIST_KINDS)[number];
export type MatchType = (typeof MATCH_TYPES)[number];
export type MatchField = (typeof MATCH_FIELDS)[number];

export const TREND_STATES = ['emerging', 'hot', 'persistent', 'seasonal_dormant', 'decayed'] as const;
export const STRUCTURAL_TYPES = ['event_driven', 'evergreen', 'cyclic', 'derivative', 'unknown'] as const;
export const SEMANTIC_TYPES = ['news', 'event_based', 'seasonal', 'lifestyle', 'evergreen'] as const;
export const TREND_ROLES = ['F1_trigger', 'F2_pile_on', 'F3_long_tail', 'F5_one_off'] as const;
export type TrendState = (typeof TREND_STATES)[number];
export type StructuralType = (typeof STRUCTURAL_TYPES)[number];
export type SemanticType = (typeof SEMANTIC_TYPES)[number];
export type TrendRole = (typeof TREND_ROLES)[number];
