// The geo area's chain options: its app (area.ts) and its Worker's app for requests without a key
// (index.ts, shared/keyless-area.ts) share them. No runtime imports: the Worker's router holds them.
import type { AreaOptions } from '../../shared/area-chain';

export const GEO_AREA: AreaOptions = { basePaths: ['/v1/geo', '/v2/geo'], auth: true };
