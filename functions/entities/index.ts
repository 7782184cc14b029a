// The entities Worker: its route table, each route loaded on its first request (shared/http/lazy-area.ts).
import { areaWorker } from '../../shared/http/lazy-area';
import { entitiesRoutes } from './routes';

export default areaWorker(entitiesRoutes);
