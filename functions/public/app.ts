// Every public route, registered at once: the all-in-one app (functions/app.ts).
import { buildPublic } from './area';
import * as check from './check';
import * as bulk from './bulk';
import * as query from './query';
import * as widget from './widget';

export function publicArea() {
  return buildPublic([check, bulk, query, widget]);
}
