// The public Worker: its route table, each route loaded on its first request (shared/http/lazy-area.ts).
import { areaWorker } from '../../shared/http/lazy-area';
import { publicRoutes } from './routes';

export default areaWorker(publicRoutes);
