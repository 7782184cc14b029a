// `npm run admin -- usage <project_id>`: the same Redis counters the Workers read.
import { listKeys } from '../../shared/admin/keys';
import { getProject } from '../../shared/admin/projects';
import type { Db } from '../../shared/db/client';
import { limiterFor } from '../../shared/limits/check';
import { monthlyQuota, monthOf, nextMonthStart } from '../../shared/limits/quota';
import { PLAN_RULES } from '../../shared/scope/plans';
import { storeOf, type GatewayInfo } from './connect';

export async function usage(db: Db, info: GatewayInfo | null, projectId: string) {
  const store = storeOf(info, 'usage');
  const project = await getProject(db, projectId);
  const now = new Date();
  const quota = monthlyQuota(project.plan, project.addons);
  const used = Number((await store.redis.get<number>(store.key('quota', project.id, monthOf(now)))) ?? 0);
  const perMinute = project.rateLimitPerMinute ?? PLAN_RULES[project.plan].perMinute;
  const keys = (await listKeys(db, project.id)).filter((k) => !k.revokedAt);
  const minutes = await Promise.all(keys.map((k) => limiterFor(store, perMinute).getRemaining(k.id)));
  return {
    project: project.name,
    plan: project.plan,
    month: { used, limit: quota.total, base: quota.base, addons: quota.addons, resets_at: nextMonthStart(now).toISOString() },
    minute: keys.map((k, i) => ({ key: k.prefix, name: k.name, limit: perMinute, remaining: minutes[i].remaining })),
  };
}
