// What each plan includes. The spec fixes the monthly quotas; the rest are our product choices
// (documented in README "Plans").
import type { Plan } from '../db/schema';

export interface PlanRules {
  monthlyQuota: number;
  perMinute: number;
  historyDays: number;
  /** Start and Grow choose their top-level categories; Scale and Enterprise have all. */
  choosesCategories: boolean;
  video: boolean;
}

export const PLAN_RULES: Record<Plan, PlanRules> = {
  start: { monthlyQuota: 100, perMinute: 10, historyDays: 30, choosesCategories: true, video: false },
  grow: { monthlyQuota: 10_000, perMinute: 60, historyDays: 90, choosesCategories: true, video: false },
  scale: { monthlyQuota: 500_000, perMinute: 300, historyDays: 365, choosesCategories: false, video: true },
  enterprise: { monthlyQuota: 2_000_000, perMinute: 1_200, historyDays: 730, choosesCategories: false, video: true },
};

/**
 * Tracked items per list kind (`usage.limit` in the lists index); null = no cap. Mention lists
 * count keywords. Our product choice, documented in README "Plans".
 */
export const LIST_CAPS: Record<Plan, Record<'entity' | 'category' | 'publisher' | 'trend' | 'mention', number | null>> = {
  start: { entity: 10, category: 5, publisher: 5, trend: 10, mention: 10 },
  grow: { entity: 100, category: 25, publisher: 50, trend: 100, mention: 100 },
  scale: { entity: 1_000, category: null, publisher: 500, trend: 1_000, mention: 300 },
  enterprise: { entity: null, category: null, publisher: null, trend: null, mention: null },
};
