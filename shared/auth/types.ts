import type { Addons, KeyKind, LimitsMode, Plan, SubscriptionStatus } from '../db/schema';

/** Everything a request may do, resolved from its API key. */
export interface AuthContext {
  keyId: string;
  keyKind: KeyKind;
  /** Null for internal and legacy keys. */
  projectId: string | null;
  /** Null only for keys without a project. */
  plan: Plan | null;
  /** Upper-case alpha-2 codes this key may read; null = every market (internal keys). */
  allowedCountries: string[] | null;
  /** Chosen top-level categories; null = all. */
  categories: string[] | null;
  apiEnabled: boolean;
  mcpEnabled: boolean;
  subscriptionStatus: SubscriptionStatus;
  historyDays: number;
  rateLimitPerMinute: number;
  addons: Addons;
  /** `strict`: limits checked in Redis on every request; `edge`: decided in the isolate (shared/limits/edge.ts). */
  limitsMode: LimitsMode;
}
