// Feed area: /v2/feed, /v2/feed/{url_id}, /v2/live.
import { createArea } from '../../shared/app';

export function feedArea() {
  return createArea({ basePaths: ['/v2/feed', '/v2/live'], auth: true });
}
