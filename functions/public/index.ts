// The public Worker: only this area's routes.
import { publicArea } from './app';

export default publicArea();
