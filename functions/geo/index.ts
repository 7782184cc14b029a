// The geo Worker: only this area's routes.
import { geoArea } from './app';

export default geoArea();
