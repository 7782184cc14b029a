// The feed Worker: only this area's routes.
import { feedArea } from './app';

export default feedArea();
