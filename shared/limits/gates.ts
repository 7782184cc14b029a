// Plan gates that depend on what a request asks for (README "Plans and limits"). Areas call these
// before reading data; none of them is a rate limit, so none invites a retry.
import type { AuthContext } from '../auth/types';
import { coded } from '../http/errors';
import { PLAN_RULES } from '../scope/plans';

/** `/Sports/Soccer` -> `/Sports`. */
export function topLevelCategory(path: string): string {
  const [, first = ''] = path.split('/');
  return `/${first}`;
}

/** 403 `category_not_in_plan` when a requested category lies outside the chosen top levels. */
export function assertCategoriesInPlan(auth: AuthContext, categories: string[]): void {
  if (auth.categories === null) return;
  const outside = categories.filter((c) => !auth.categories!.includes(topLevelCategory(c)));
  if (outside.length) {
    throw coded(
      'category_not_in_plan',
      `Categories outside your plan: ${outside.join(', ')}. Your plan covers: ${auth.categories.join(', ') || 'none'}.`,
    );
  }
}

/** 403 `endpoint_not_in_plan_scope` for endpoints that cannot be limited to chosen categories. */
export function assertEndpointScopable(auth: AuthContext, endpoint: string): void {
  if (auth.categories !== null) {
    throw coded(
      'endpoint_not_in_plan_scope',
      `${endpoint} cannot be limited to your chosen categories, so it is closed to category-limited plans.`,
    );
  }
}

/** 404 `out_of_plan_scope`: the article exists but none of its categories is in the plan. */
export function assertArticleInPlan(auth: AuthContext, articleCategories: string[]): void {
  if (auth.categories === null) return;
  if (!articleCategories.some((c) => auth.categories!.includes(topLevelCategory(c)))) {
    throw coded('out_of_plan_scope', 'The article lies outside the categories of your plan.');
  }
}

/** 403 `video_not_in_plan` (the code names the platform) on plans without video data. */
export function assertVideoInPlan(auth: AuthContext, platform: string): void {
  if (auth.plan && !PLAN_RULES[auth.plan].video) {
    throw coded('video_not_in_plan', `${platform} video data is not part of your plan.`, { platform });
  }
}

export interface ClampedStart {
  from: Date;
  clamped: boolean;
  historyDays: number;
}

/** A start further back than the plan's history is moved forward, not refused. */
export function clampToHistory(auth: AuthContext, from: Date, now: Date): ClampedStart {
  const earliest = new Date(now.getTime() - auth.historyDays * 86_400_000);
  return from < earliest
    ? { from: earliest, clamped: true, historyDays: auth.historyDays }
    : { from, clamped: false, historyDays: auth.historyDays };
}
