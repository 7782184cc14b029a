// The articles Worker: only this area's routes.
import { articlesArea } from './app';

export default articlesArea();
