// What each plan includes. The spec fixes the monthly quotas; the rest are our product choices
// (documented in README "Plans").
import type { Plan } from './db/schema';

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
