/**
 * Moved to kit/time.tsx. The team pages still import formatTime from here until phase B of issue 17
 * moves them onto the kit; then this file goes.
 */
export { formatTime } from './kit/time.js';
