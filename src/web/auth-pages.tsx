/**
 * Moved to kit/message-page.tsx. The team routes still import MessagePage from here until phase B of
 * issue 17 moves them onto the kit; then this file goes.
 */
export { MessagePage } from './kit/message-page.js';
