// Which project a tracking-list request reads: lists belong to a project, so a key reads its own project's
// and only an internal key (bound to none) may name one.
import type { AuthContext } from '../../shared/auth/types';
import { ApiError, coded, forbidden } from '../../shared/http/errors';

const KEY_REQUIRED =
  "Tracking lists need a project key (create one in the project's API access settings); this key is not bound to a project.";

/** The key's own project; internal keys may name one with `project_id` (lists index only). */
export function trackingProject(auth: AuthContext, requested?: string): string {
  if (auth.projectId) {
    if (requested && requested !== auth.projectId) {
      throw forbidden('project_id can only be passed with an internal key; this key reads its own project.');
    }
    return auth.projectId;
  }
  if (auth.keyKind === 'internal' && requested) return requested;
  throw coded('project_key_required', KEY_REQUIRED);
}

/** Unknown ids and other projects' lists are indistinguishable. */
export const listNotFound = () => new ApiError(404, 'tracking list not found');
