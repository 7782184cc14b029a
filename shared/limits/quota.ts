// Monthly request quota per project (README "Plans and limits"), shared by the REST API and MCP.
import type { Addons, Plan } from '../db/schema';
import { PLAN_RULES } from '../scope/plans';

/** Requests per purchased pack; only Grow and Scale can buy packs. */
export const REQUEST_PACK_SIZE: Partial<Record<Plan, number>> = { grow: 10_000, scale: 100_000 };
export const ADDON_REQUESTS = { extra_entities: 10, extra_keywords: 2, extra_publishers: 10 } as const;

export interface QuotaBreakdown {
  base: number;
  addons: number;
  total: number;
}

export function monthlyQuota(plan: Plan, addons: Addons): QuotaBreakdown {
  const base = PLAN_RULES[plan].monthlyQuota;
  const packs = (REQUEST_PACK_SIZE[plan] ?? 0) * (addons.request_packs ?? 0);
  const extras =
    ADDON_REQUESTS.extra_entities * (addons.extra_entities ?? 0) +
    ADDON_REQUESTS.extra_keywords * (addons.extra_keywords ?? 0) +
    ADDON_REQUESTS.extra_publishers * (addons.extra_publishers ?? 0);
  return { base, addons: packs + extras, total: base + packs + extras };
}

/** `2026-11` for the UTC month of `at`. */
export const monthOf = (at: Date) => at.toISOString().slice(0, 7);

export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
