// Dev-only values that `npm start` and the tests bind (with ENVIRONMENT=development). They are public
// (in this repository), so deployed Workers refuse them (docs/SECURITY.md "Secrets"). No imports: the vitest config and
// Node scripts read this file too.

/** HMAC key of feed cursors in development only (shared/http/cursor.ts cursorSecret refuses it elsewhere). */
export const DEV_CURSOR_SECRET = 'dev-only-cursor-secret-not-for-production';
