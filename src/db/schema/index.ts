export * from './accounts.js';
export * from './audit.js';
export * from './coordination.js';
export * from './oauth.js';
export * from './tasks.js';
export * from './workspaces.js';
