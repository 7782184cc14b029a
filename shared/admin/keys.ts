// API keys: at most 10 live keys per project (README "Admin CLI"); shown once, stored hashed.
import { and, count, desc, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { generateKey, sha256Hex } from '../auth/keys';
import type { Db } from '../db/client';
import { apiKeys, KEY_KINDS, projects } from '../db/schema';
import { AdminError, parseOrThrow } from './projects';

export const MAX_KEYS_PER_PROJECT = 10;

const NewKeySchema = z
  .object({
    projectId: z.string().uuid().nullable().default(null),
    kind: z.enum(KEY_KINDS).default('project'),
    name: z.string().min(1).default('default'),
    countries: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z]{2}$/, 'country codes are ISO 3166-1 alpha-2')
          .transform((c) => c.toUpperCase()),
      )
      .nullable()
      .default(null),
  })
  .refine((k) => (k.kind === 'project') === (k.projectId !== null), {
    message: 'project keys need a project; internal and legacy keys have none',
    path: ['projectId'],
  });
export type NewKey = z.input<typeof NewKeySchema>;

/** Creates a key and returns it in clear text: the only time it is ever shown. */
export async function createKey(db: Db, input: NewKey) {
  const values = parseOrThrow(NewKeySchema, input);
  if (values.projectId) {
    const [project] = await db.select().from(projects).where(eq(projects.id, values.projectId));
    if (!project) throw new AdminError(`no project ${values.projectId}`);
    const outside = (values.countries ?? []).filter((c) => !project.countries.includes(c));
    if (outside.length) throw new AdminError(`countries ${outside.join(', ')} are not markets of project ${project.name}`);
    const [{ live }] = await db
      .select({ live: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.projectId, values.projectId), isNull(apiKeys.revokedAt)));
    if (live >= MAX_KEYS_PER_PROJECT) {
      throw new AdminError(`project already has ${MAX_KEYS_PER_PROJECT} live keys; revoke one first`);
    }
  }
  const key = generateKey();
  const [row] = await db
    .insert(apiKeys)
    .values({ ...values, keyHash: await sha256Hex(key), keyPrefix: key.slice(0, 10) })
    .returning({ id: apiKeys.id, projectId: apiKeys.projectId, kind: apiKeys.kind, name: apiKeys.name, countries: apiKeys.countries });
  return { ...row, key };
}

export async function listKeys(db: Db, projectId?: string) {
  return db
    .select({
      id: apiKeys.id,
      projectId: apiKeys.projectId,
      kind: apiKeys.kind,
      name: apiKeys.name,
      prefix: apiKeys.keyPrefix,
      countries: apiKeys.countries,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(projectId ? eq(apiKeys.projectId, projectId) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

export async function revokeKey(db: Db, id: string, at: Date) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (!row) throw new AdminError(`no live key ${id}`);
  return row;
}
