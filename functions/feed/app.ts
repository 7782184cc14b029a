// Feed area: /v2/feed, /v2/feed/{url_id}, /v2/live.
import { createArea } from '../../shared/app';
import { register as registerFeed } from './feed';
import { register as registerLive } from './live';
import { register as registerProfile } from './profile';

export function feedArea() {
  const area = createArea({ basePaths: ['/v2/feed', '/v2/live'], auth: true });
  for (const register of [registerFeed, registerProfile, registerLive]) register(area);
  return area;
}
