// Tracking lists are read-only through the API; operators (and the demo) create them here.
import { z } from 'zod';
import type { Db } from '../db/client';
import { LIST_KINDS, MATCH_TYPES, trackingListItems, trackingLists } from '../db/schema';
import { parseOrThrow } from './projects';

export const MAX_MENTION_KEYWORDS = 300;
export const MAX_MENTION_TERMS = 900;

const ItemSchema = z.object({
  key: z.string().min(1),
  name: z.string().min(1).optional(),
  type: z.string().nullable().optional(),
  addedAt: z.date().optional(),
});
const TermSchema = z.object({
  keyword: z.string().trim().min(1),
  matchType: z.enum(MATCH_TYPES),
  addedAt: z.date().optional(),
});

const NewListSchema = z
  .object({
    /** Fixed ids for the demo's well-known lists (shared/schemas/demo-ids.ts); a fresh one otherwise. */
    id: z.string().uuid().optional(),
    projectId: z.string().uuid(),
    kind: z.enum(LIST_KINDS),
    name: z.string().min(1),
    colorIndex: z.number().int().min(0).default(0),
    createdAt: z.date().optional(),
    items: z.array(ItemSchema).default([]),
    terms: z.array(TermSchema).default([]),
    countries: z
      .array(
        z
          .string()
          .length(2)
          .transform((c) => c.toUpperCase()),
      )
      .default([]),
    langs: z
      .array(
        z
          .string()
          .min(2)
          .transform((c) => c.toLowerCase()),
      )
      .default([]),
    searchScope: z.enum(['title', 'body', 'both']).default('title'),
  })
  .refine((l) => l.kind === 'mention' || l.terms.length === 0, { message: 'only mention lists have terms', path: ['terms'] })
  .refine((l) => new Set(l.terms.map((t) => t.keyword.toLowerCase())).size <= MAX_MENTION_KEYWORDS, {
    message: `a mention list holds at most ${MAX_MENTION_KEYWORDS} keywords`,
    path: ['terms'],
  })
  .refine((l) => l.terms.length <= MAX_MENTION_TERMS, {
    message: `a mention list holds at most ${MAX_MENTION_TERMS} terms`,
    path: ['terms'],
  });
export type NewList = z.input<typeof NewListSchema>;

/** Normalizes an item key as the spec's kinds require (publisher: clean lower-case domain). */
export function normalizeItemKey(kind: string, key: string): string {
  if (kind === 'publisher')
    return key
      .trim()
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/.*$/, '');
  return key.trim();
}

export async function createList(db: Db, input: NewList, now = new Date()) {
  const list = parseOrThrow(NewListSchema, input);
  const createdAt = list.createdAt ?? now;
  const [row] = await db
    .insert(trackingLists)
    .values({
      ...(list.id && { id: list.id }),
      projectId: list.projectId,
      kind: list.kind,
      name: list.name,
      colorIndex: list.colorIndex,
      createdAt,
      updatedAt: createdAt,
      countries: list.countries,
      langs: list.langs,
      searchScope: list.searchScope,
      ...(list.kind === 'mention' && {
        matchTypes: [...new Set(list.terms.map((t) => t.matchType))],
        scanStatus: 'succeeded',
        lastScannedAt: now,
        nextScanAt: new Date(now.getTime() + 3_600_000),
        extractionStartedAt: createdAt,
      }),
    })
    .returning();
  const rows =
    list.kind === 'mention'
      ? list.terms.map((t, position) => ({
          listId: row.id,
          key: `${t.keyword}|${t.matchType}`,
          name: t.keyword,
          rawText: t.keyword,
          matchType: t.matchType,
          position,
          addedAt: t.addedAt ?? createdAt,
        }))
      : list.items.map((i) => {
          const key = normalizeItemKey(list.kind, i.key);
          return { listId: row.id, key, name: i.name ?? key, type: i.type ?? null, addedAt: i.addedAt ?? createdAt };
        });
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insert(trackingListItems)
      .values(rows.slice(start, start + 500))
      .onConflictDoNothing();
  }
  return { ...row, itemCount: rows.length };
}
