// The query of GET .../matches, whose filters its stream takes too (routes/get-tracking-list-matches.ts,
// routes/stream-tracking-list-matches.ts), and the parser of its `match_types`.
import { z } from '@hono/zod-openapi';
import { isoQueryParam } from '../../shared/time/dates';
import { MATCH_TYPES } from '../../shared/db/values';
import { invalid } from '../../shared/http/errors';
import { capList, capNote, LIST_CAP_NOTE, MAX_LIST_ITEMS } from '../../shared/scope/list-caps';

export const MatchesQuery = z.object({
  country: z
    .string()
    .regex(/^([A-Za-z]{2}|all)$/, 'Expected an ISO 3166-1 alpha-2 code or `all`')
    .default('all')
    .openapi({
      description: "Resolved against the list's countries and the key's markets; a country the list does not watch gives an empty payload.",
    }),
  lang: z
    .string()
    .regex(/^([A-Za-z]{2}|all)$/, 'Expected an ISO 639-1 code or `all`')
    .default('all')
    .openapi({ description: "A language outside the list's langs gives an empty payload." }),
  date_from: isoQueryParam(
    "On when the article was first seen; clamped to plan history (`scope.clamped`). `date_to` not after `date_from` is 422. A window wholly before the history is not refused: it answers the empty window at the history's start (`scope.from` = `scope.to`, every count 0, `scope.clamped` true).",
    '2026-11-01T00:00:00Z',
  ),
  date_to: isoQueryParam('Defaults to now.', '2026-11-08T00:00:00Z'),
  mention: z
    .union([z.string(), z.array(z.string()).openapi({ maxItems: MAX_LIST_ITEMS })])
    .optional()
    .openapi({ description: `Repeatable: only these keywords.${LIST_CAP_NOTE}`, example: 'heat pump' }),
  match_types: z
    .string()
    .max(64)
    .optional()
    .openapi({
      description: `Comma-separated subset of \`broad\`, \`phrase\`, \`exact\`.${capNote(MATCH_TYPES.length)}`,
      example: 'broad,exact',
    }),
  scope: z
    .enum(['all', 'title', 'body', 'both'])
    .default('all')
    .openapi({ description: 'Where the hit occurred; `both` = in title and body.' }),
  q: z.string().min(1).optional().openapi({ description: "Free text over matched publications' title and domain.", example: 'news' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(200)
    .openapi({ description: 'Publications (not hits), 1-1000.', type: 'integer', example: 200 }),
});

export function matchTypes(raw: string | undefined): string[] {
  if (!raw) return [...MATCH_TYPES];
  const types = capList(
    raw
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    'match_types',
    MATCH_TYPES.length,
    "separated by ','",
  );
  const bad = types.filter((t) => !(MATCH_TYPES as readonly string[]).includes(t));
  if (bad.length || !types.length)
    throw invalid(['query', 'match_types'], `match_types is a comma-separated subset of ${MATCH_TYPES.join(', ')}`, 'enum');
  return types;
}
