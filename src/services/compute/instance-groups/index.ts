export { InstanceGroupService } from './instance-group-service.ts';
export { registerInstanceGroupRoutes } from './routes.ts';
