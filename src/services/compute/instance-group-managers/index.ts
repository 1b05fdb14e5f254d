export { ManagerService, type ManagerRef } from './manager-service.ts';
export { MANAGERS_KIND, renderManager, type StoredManager } from './manager.ts';
export { registerManagerRoutes } from './routes.ts';
export { INSTANT_TIMING, REALISTIC_TIMING, type Timing } from './rollout.ts';
