// Checks a metrics/roll-up request must pass before anything is cached, computed or queued.
import type { AuthContext } from '../../shared/auth/types';
import type { Db } from '../../shared/db/client';
import { assertCategoriesInPlan } from '../../shared/limits/gates';
import { listNotFound, trackingProject } from './project';
import { getList, listItems } from './queries';
import { resolveWindow } from './window';

type WindowParams = Parameters<typeof resolveWindow>[3];

/** The list (404 otherwise), the window's validity (422/403), and the plan's categories (403). */
export async function admitAggregate(db: Db, auth: AuthContext, now: Date, listId: string, query: WindowParams, grain: 'hour' | 'day') {
  const projectId = trackingProject(auth);
  const list = await getList(db, projectId, listId, now);
  if (!list) throw listNotFound();
  await resolveWindow(db, auth, now, query, grain);
  if (list.kind === 'category' && auth.categories !== null) {
    assertCategoriesInPlan(auth, (await listItems(db, list.id)).map((i) => i.key));
  }
  return { projectId, list };
}
