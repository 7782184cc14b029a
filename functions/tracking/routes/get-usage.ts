// GET /v1/usage: where the key stands against its per-minute limit and monthly quota.
// Reads what the limits middleware already fetched; spends no quota.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { iso } from '../../../shared/format';
import { monthlyQuota } from '../../../shared/limits/quota';
import { errorResponses, keyed } from '../../../shared/schemas/common';

const WindowUsage = z.object({
  limit: z.number().int().openapi({ example: 60 }),
  used: z.number().int().openapi({ example: 3 }),
  remaining: z.number().int().openapi({ example: 57 }),
  resets_at: z.string().openapi({ example: '2026-11-21T10:15:00+00:00' }),
});

const UsageSchema = z
  .object({
    plan: z.enum(['start', 'grow', 'scale', 'enterprise']).nullable().openapi({ description: 'Null for keys without a project.' }),
    project_id: z.string().nullable(),
    key_id: z.string(),
    minute: WindowUsage.extend({
      mode: z
        .enum(['redis', 'local'])
        .openapi({ description: '`local` while the shared limiter is unreachable: this edge location counts on its own.' }),
    }),
    month: WindowUsage.extend({
      base: z.number().int().openapi({ description: "The plan's monthly quota.", example: 10_000 }),
      addons: z.number().int().openapi({ description: 'Requests added by add-ons and request packs.', example: 50 }),
    })
      .nullable()
      .openapi({ description: 'Null for keys without a project, or while usage cannot be read.' }),
    addons: z.record(z.string(), z.number()).openapi({ example: { extra_entities: 5 } }),
  })
  .openapi('Usage');

const route = createRoute({
  method: 'get',
  path: '/v1/usage',
  operationId: 'getUsage',
  tags: ['Account'],
  summary: 'Usage and limits',
  description:
    "The key's plan, per-minute and monthly usage, remaining requests, add-ons and reset times. Does not count against the monthly quota.",
  security: keyed,
  responses: {
    200: { description: 'Usage.', content: { 'application/json': { schema: UsageSchema } } },
    ...errorResponses(401, 402, 403, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, (c) => {
    const { auth, limits } = c.var;
    const { minute, month } = limits;
    const quota = auth.plan ? monthlyQuota(auth.plan, auth.addons) : null;
    return c.json(
      {
        plan: auth.plan,
        project_id: auth.projectId,
        key_id: auth.keyId,
        minute: {
          limit: minute.limit,
          used: minute.limit - minute.remaining,
          remaining: minute.remaining,
          resets_at: iso(new Date(minute.resetMs)),
          mode: minute.mode,
        },
        month:
          month && quota
            ? {
                limit: month.limit,
                used: month.used,
                remaining: Math.max(0, month.limit - month.used),
                resets_at: iso(new Date(month.resetMs)),
                base: quota.base,
                addons: quota.addons,
              }
            : null,
        addons: auth.addons as Record<string, number>,
      },
      200,
    );
  });
}
