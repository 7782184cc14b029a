// The geo area's chain options: its route table's (routes.ts), which its area apps and its Worker's app
// for requests without a key (shared/http/keyless-area.ts) share. No runtime imports: the Worker's router holds them.
import type { AreaOptions } from '../../shared/http/chain';

export const GEO_AREA: AreaOptions = { basePaths: ['/v1/geo', '/v2/geo'], auth: true };
