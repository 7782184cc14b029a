// Tenants: projects (plan, markets, categories, flags) and their API keys (hashes only).
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { PLANS } from '../values';

export { PLANS };
export type Plan = (typeof PLANS)[number];
export const SUBSCRIPTION_STATES = ['active', 'trialing', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATES)[number];
/** How limits are decided: at the edge with background reconciliation, or by Redis on every request. */
export const LIMITS_MODES = ['edge', 'strict'] as const;
export type LimitsMode = (typeof LIMITS_MODES)[number];
export const KEY_KINDS = ['project', 'internal', 'legacy'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export interface Addons {
  request_packs?: number;
  extra_entities?: number;
  extra_keywords?: number;
  extra_publishers?: number;
}

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  plan: text('plan').$type<Plan>().notNull(),
  /** Entitled markets, upper-case alpha-2. */
  countries: text('countries').array().notNull().default(sql`'{}'::text[]`),
  /** Chosen top-level categories; null = every category (Scale, Enterprise). */
  categories: text('categories').array(),
  apiEnabled: boolean('api_enabled').notNull().default(true),
  mcpEnabled: boolean('mcp_enabled').notNull().default(true),
  subscriptionStatus: text('subscription_status').$type<SubscriptionStatus>().notNull().default('active'),
  /** Overrides the plan's history depth when set. */
  historyDays: integer('history_days'),
  /** Overrides the plan's per-minute rate limit when set. */
  rateLimitPerMinute: integer('rate_limit_per_minute'),
  addons: jsonb('addons').$type<Addons>().notNull().default({}),
  limitsMode: text('limits_mode').$type<LimitsMode>().notNull().default('edge'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Null for internal and legacy keys. */
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<KeyKind>().notNull(),
    name: text('name').notNull(),
    /** SHA-256 hex of the key; the key itself is shown once and never stored. */
    keyHash: text('key_hash').notNull().unique(),
    /** First characters of the key, to tell keys apart in listings. */
    keyPrefix: text('key_prefix').notNull(),
    /** Countries this key may read; null = all of the project's markets (internal keys: all). */
    countries: text('countries').array(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('api_keys_project_idx').on(t.projectId)],
);
