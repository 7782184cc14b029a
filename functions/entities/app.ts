// Every entities route, registered at once: the all-in-one app (functions/app.ts). `trending` is
// registered before `{entity_name}` so that it is not taken for an entity called "trending".
import { buildEntities } from './area';
import * as list from './list';
import * as trending from './trending';
import * as detail from './detail';
import * as articles from './articles';

export function entitiesArea() {
  return buildEntities([list, trending, detail, articles]);
}
