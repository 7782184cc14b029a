// Checks a metrics/roll-up request must pass before anything is cached, computed or queued.
import type { AuthContext } from '../../shared/auth/types';
import { heldOrLoaded } from '../../shared/cache/memory';
import { namespaces } from '../../shared/cache/namespaces';
import type { Db } from '../../shared/db/client';
import type { Config } from '../../shared/env';
import { assertCategoriesInPlan, assertVideoInPlan } from '../../shared/limits/gates';
import { PLAN_RULES } from '../../shared/scope/plans';
import { prefetchMarketsWithData } from '../../shared/rollups/coverage';
import { listNotFound, trackingProject } from './project';
import { getList, listItems, type ListRow, videoPublisher } from './queries';
import { resolveWindow } from '../../shared/scope/window-scope';

type WindowParams = Parameters<typeof resolveWindow>[3];

declare module '../../shared/cache/namespaces' {
  interface NamespaceValues {
    listAdmissions: ListRow;
  }
}

/**
 * Lists this isolate admitted in the last ISOLATE_CACHE_SECONDS (default 10), per deployment,
 * project, list and minute of "now", so that a warm cached page costs no SQL. Like the key cache
 * (30 s), an operator's change to a list reaches an isolate that holds it within that time; an
 * unknown list is never held, so a new one answers at once.
 */
const lists = namespaces.listAdmissions.held;
const LIST_ROW_BYTES = 1_024;

function admittedList(config: Config, db: Db, projectId: string, listId: string, now: Date): Promise<ListRow | undefined> {
  const key = JSON.stringify([
    config.DATABASE_URL,
    config.REDIS_PREFIX,
    projectId,
    listId.toLowerCase(),
    Math.floor(now.getTime() / 60_000),
  ]);
  return heldOrLoaded(lists, key, config.ISOLATE_CACHE_SECONDS, LIST_ROW_BYTES, () => getList(db, projectId, listId, now));
}

/** The list (404 otherwise), the window's validity (422/403), the plan's categories and video (403). */
export async function admitAggregate(
  config: Config,
  db: Db,
  auth: AuthContext,
  now: Date,
  listId: string,
  query: WindowParams,
  grain: 'hour' | 'day',
) {
  const projectId = trackingProject(auth);
  prefetchMarketsWithData(config, db); // beside the cache lookup: a computed answer then waits for it no more
  const list = await admittedList(config, db, projectId, listId, now);
  if (!list) throw listNotFound();
  const { keyScope } = await resolveWindow(db, auth, now, query, grain);
  if (list.kind === 'category' && auth.categories !== null) {
    assertCategoriesInPlan(
      auth,
      (await listItems(db, projectId, list.id)).map((i) => i.key),
    );
  }
  if (list.kind === 'publisher' && auth.plan && !PLAN_RULES[auth.plan].video) {
    const video = await videoPublisher(db, list.id);
    if (video !== undefined) assertVideoInPlan(auth, video);
  }
  return { projectId, list, markets: keyScope.markets.length };
}
