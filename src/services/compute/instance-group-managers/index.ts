export { ManagerService, type ManagerRef } from './manager-service.ts';
export { MANAGERS_KIND, renderManager, type StoredManager } from './manager.ts';
export { registerManagerRoutes } from './routes.ts';
export { displayedAction, INSTANT_TIMING, isStable, isVersionReached, REALISTIC_TIMING, type Timing } from './rollout.ts';
