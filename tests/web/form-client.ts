/**
 * The form client moved to tests/helpers/forms.ts; this re-export keeps tests/web (changed by
 * another branch at the time) compiling. Import from tests/helpers in new code.
 */
export { FormClient, SESSION_COOKIE } from '../helpers/forms.js';
