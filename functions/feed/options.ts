// The feed area's chain options: its route table's (routes.ts), which its area apps and its Worker's app
// for requests without a key (shared/http/keyless-area.ts) share. No runtime imports: the Worker's router holds them.
import type { AreaOptions } from '../../shared/http/chain';

export const FEED_AREA: AreaOptions = { basePaths: ['/v2/feed', '/v2/live'], auth: true };
