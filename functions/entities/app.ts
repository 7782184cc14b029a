// Entities area: /v1/entities*. `trending` is registered before `{entity_name}` so that it is not
// taken for an entity called "trending".
import { createArea } from '../../shared/app';
import { register as registerArticles } from './articles';
import { register as registerDetail } from './detail';
import { register as registerList } from './list';
import { register as registerTrending } from './trending';

export function entitiesArea() {
  const area = createArea({ basePaths: ['/v1/entities'], auth: true });
  for (const register of [registerList, registerTrending, registerDetail, registerArticles]) register(area);
  return area;
}
