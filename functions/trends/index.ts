// The trends Worker: only this area's routes.
import { trendsArea } from './app';

export default trendsArea();
