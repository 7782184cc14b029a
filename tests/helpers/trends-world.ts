// The trends test files' world: the trends fixture seeded at its NOW, an internal key, and tenants
// with every market, one market (US), and a category-limited plan (/Sports).
import { NOW, trendRecords } from '../fixtures/trends';
import { seed } from './seed';
import { createWorld, type Tenant, type World } from './world';

export interface TrendsWorld {
  world: World;
  internal: string;
  full: Tenant;
  usOnly: Tenant;
  sportsPlan: Tenant;
}

export async function trendsWorld(name: string): Promise<TrendsWorld> {
  const world = await createWorld(name);
  world.setNow(NOW);
  await seed(world, trendRecords());
  return {
    world,
    internal: await world.internalKey(),
    full: await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }),
    usOnly: await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }, { countries: ['US'] }),
    sportsPlan: await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] }),
  };
}
