export { OperationService, type StartRequest, type OperationServiceOptions } from './operation-service.ts';
export { DEFAULT_RETENTION_MS, MEMORY_MAX_RETAINED_OPERATIONS } from './operation-retention.ts';
export type { Executor, ExecutorResult } from './operation-runner.ts';
export { OPERATIONS_KIND, operationKey, operationPath, renderOperation, type StoredOperation, type OperationWork, type OperationStatus } from './operation.ts';
export { parseRequestId, REQUEST_IDS_KIND } from './request-id.ts';
export { registerOperationRoutes } from './routes.ts';
