// The tracking Worker: only this area's routes.
import { trackingArea } from './app';

export default trackingArea();
