// The feed Worker: its route table, each route loaded on its first request (shared/lazy-area.ts).
import { areaWorker } from '../../shared/lazy-area';
import { feedRoutes } from './routes';

export default areaWorker(feedRoutes);
