// The trends Worker: its route table, each route loaded on its first request (shared/lazy-area.ts).
import { areaWorker } from '../../shared/lazy-area';
import { trendsRoutes } from './routes';

export default areaWorker(trendsRoutes);
