// The entities Worker: only this area's routes.
import { entitiesArea } from './app';

export default entitiesArea();
