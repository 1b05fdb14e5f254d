export { BackendServiceService, type BackendServiceRef } from './backend-service-service.ts';
export { BACKEND_SERVICES_KIND, renderBackendService, type StoredBackendService } from './backend-service.ts';
export { registerBackendServiceRoutes } from './routes.ts';
