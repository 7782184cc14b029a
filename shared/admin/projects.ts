// Operator actions on tenants; the admin CLI and the tests both go through these.
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { LIMITS_MODES, PLANS, projects, SUBSCRIPTION_STATES, type Addons } from '../db/schema';

const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'country codes are ISO 3166-1 alpha-2, e.g. US')
  .transform((c) => c.toUpperCase());

/** A project's settings, without defaults: a patch must change only the fields it names. */
const ProjectFields = z.object({
  name: z.string().min(1, 'a project needs a name'),
  plan: z.enum(PLANS),
  countries: z.array(countryCode),
  categories: z.array(z.string().min(1)).nullable(),
  apiEnabled: z.boolean(),
  mcpEnabled: z.boolean(),
  subscriptionStatus: z.enum(SUBSCRIPTION_STATES),
  historyDays: z.number().int().positive().nullable(),
  rateLimitPerMinute: z.number().int().positive().nullable(),
  addons: z.custom<Addons>(),
  limitsMode: z.enum(LIMITS_MODES),
});
const { shape } = ProjectFields;

export const NewProjectSchema = ProjectFields.extend({
  id: z.string().uuid().optional(),
  countries: shape.countries.default([]),
  categories: shape.categories.default(null),
  apiEnabled: shape.apiEnabled.default(true),
  mcpEnabled: shape.mcpEnabled.default(true),
  subscriptionStatus: shape.subscriptionStatus.default('active'),
  historyDays: shape.historyDays.default(null),
  rateLimitPerMinute: shape.rateLimitPerMinute.default(null),
  addons: shape.addons.default({}),
  limitsMode: shape.limitsMode.default('edge'),
});
export type NewProject = z.input<typeof NewProjectSchema>;

export class AdminError extends Error {}

export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new AdminError(result.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  }
  return result.data;
}

export async function createProject(db: Db, input: NewProject) {
  const values = parseOrThrow(NewProjectSchema, input);
  const [row] = await db.insert(projects).values(values).returning();
  return row;
}

export async function getProject(db: Db, id: string) {
  const [row] = await db.select().from(projects).where(eq(projects.id, id));
  if (!row) throw new AdminError(`no project ${id}`);
  return row;
}

export async function listProjects(db: Db) {
  return db.select().from(projects).orderBy(projects.createdAt);
}

// Not NewProjectSchema.partial(): zod 4 applies a default inside .partial(), so every setting the
// patch leaves out would be reset (`project:set --plan scale` wiped the markets and categories).
export const ProjectPatchSchema = ProjectFields.partial();

export async function updateProject(db: Db, id: string, patch: z.input<typeof ProjectPatchSchema>) {
  const values = parseOrThrow(ProjectPatchSchema.strict(), patch);
  const [row] = await db.update(projects).set(values).where(eq(projects.id, id)).returning();
  if (!row) throw new AdminError(`no project ${id}`);
  return row;
}
