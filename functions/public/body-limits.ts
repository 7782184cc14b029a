// The public area's body-taking route and its limit: 100 URLs of ~600 characters; anything larger is not a list of domains.
import { KiB } from '../../shared/http/body-limits';

export const BULK_PATH = '/public/platform-profile/bulk';
export const BULK_BODY_MAX_BYTES = 64 * KiB;
