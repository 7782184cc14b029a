// Checks a metrics/roll-up request must pass before anything is cached, computed or queued.
import type { AuthContext } from '../../shared/auth/types';
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { assertCategoriesInPlan, assertVideoInPlan } from '../../shared/limits/gates';
import { PLAN_RULES } from '../../shared/plans';
import { listNotFound, trackingProject } from './project';
import { getList, listItems } from './queries';
import { resolveWindow } from '../../shared/window-scope';

type WindowParams = Parameters<typeof resolveWindow>[3];

/** The list (404 otherwise), the window's validity (422/403), the plan's categories and video (403). */
export async function admitAggregate(db: Db, auth: AuthContext, now: Date, listId: string, query: WindowParams, grain: 'hour' | 'day') {
  const projectId = trackingProject(auth);
  const list = await getList(db, projectId, listId, now);
  if (!list) throw listNotFound();
  const { markets } = await resolveWindow(db, auth, now, query, grain);
  if (list.kind === 'category' && auth.categories !== null) {
    assertCategoriesInPlan(auth, (await listItems(db, list.id)).map((i) => i.key));
  }
  if (list.kind === 'publisher' && auth.plan && !PLAN_RULES[auth.plan].video) {
    const [video] = await queryRows<{ name: string }>(db,
      `SELECT p.name FROM tracking_list_items i JOIN publishers p ON p.domain = i.key WHERE i.list_id = $1 AND p.is_video LIMIT 1`, [list.id]);
    if (video) assertVideoInPlan(auth, video.name);
  }
  return { projectId, list, markets: markets.length };
}
