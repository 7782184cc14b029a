// Tenant-side lines (projects, tracking lists and their items) for demos and fixtures.
import { z } from 'zod';
import { LIST_KINDS, MATCH_TYPES, PLANS } from '../../db/values';
import { categoryPath, country, int32, language, nonEmpty, opt, text, timestamp, uuid } from './fields';

/** Tenant side (demo and fixtures): flags, quotas and keys stay with the admin module. */
export const projectRecord = z.object({
  type: z.literal('project'),
  id: uuid,
  name: nonEmpty,
  plan: z.enum(PLANS),
  countries: z.array(country),
  categories: opt(z.array(categoryPath)),
});

export const trackingListRecord = z.object({
  type: z.literal('tracking_list'),
  id: uuid,
  project_id: uuid,
  kind: z.enum(LIST_KINDS),
  name: nonEmpty,
  color_index: int32.default(0),
  created_at: timestamp,
  updated_at: timestamp,
  countries: z.array(country).default([]),
  langs: z.array(language).default([]),
  search_scope: text.default('title'),
  match_types: z.array(z.enum(MATCH_TYPES)).default([]),
  active: z.boolean().default(true),
  last_scanned_at: opt(timestamp),
  next_scan_at: opt(timestamp),
  scan_status: opt(text),
  scan_error: opt(text),
  extraction_started_at: opt(timestamp),
});

/** Key: (list_id, key). `id` is kept from the first load; optional so fixtures can pin it. */
export const trackingListItemRecord = z.object({
  type: z.literal('tracking_list_item'),
  id: opt(uuid),
  list_id: uuid,
  key: nonEmpty,
  name: text,
  /** The item's `type` column; renamed because `type` is the line's discriminator. */
  item_type: opt(text),
  added_at: timestamp,
  raw_text: opt(text),
  match_type: opt(z.enum(MATCH_TYPES)),
  position: opt(int32),
});
