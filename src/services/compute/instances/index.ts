export { InstanceService, type InstanceRef } from './instance-service.ts';
export { INSTANCES_KIND, renderInstance, type StoredInstance } from './instance.ts';
export { registerInstanceRoutes } from './routes.ts';
