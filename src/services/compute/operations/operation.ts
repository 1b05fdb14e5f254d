import { link, type Links } from '../shared/links.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';

/** OPERATIONS_KIND is the store kind of compute Operations; keys are `project/scopePath/name`. */
export const OPERATIONS_KIND = 'compute.operations';

/** OperationStatus is the life cycle: PENDING → RUNNING → DONE, never backwards. */
export type OperationStatus = 'PENDING' | 'RUNNING' | 'DONE';

/** OperationErrorEntry is one `error.errors[]` entry of a failed Operation. */
export interface OperationErrorEntry {
  readonly code: string;
  readonly message: string;
  readonly location?: string;
  /** Typed details (`quotaInfo`, `errorInfo`, …), each an object with one of them; gcloud reads `errorDetails[0].quotaInfo`. */
  readonly errorDetails?: readonly Record<string, unknown>[];
}

/** OperationWork is the durable description of what an Operation still has to do, run by a named executor. */
export interface OperationWork {
  readonly action: string;
  readonly payload: unknown;
}

/** StoredOperation is an Operation as kept in the store (links are rendered per request). */
export interface StoredOperation {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly scope: Scope;
  readonly operationType: string;
  /** Path of the target resource, e.g. `projects/p/global/instanceTemplates/t1`. */
  readonly targetPath: string;
  readonly targetId?: string;
  readonly status: OperationStatus;
  readonly progress: number;
  readonly user: string;
  readonly insertTime: number;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly clientOperationId?: string;
  readonly description?: string;
  readonly statusMessage?: string;
  readonly errors?: readonly OperationErrorEntry[];
  readonly httpErrorStatusCode?: number;
  readonly httpErrorMessage?: string;
  /** Present until the work ran; lets a restarted server finish what a stopped one began. */
  readonly work?: OperationWork;
}

/** operationKey is the store key of an Operation. */
export function operationKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** operationPath is the resource path of an Operation. */
export function operationPath(op: Pick<StoredOperation, 'project' | 'scope' | 'name'>): string {
  return `projects/${op.project}/${scopePath(op.scope)}/operations/${op.name}`;
}

/** renderOperation produces the wire form of an Operation, with links on the caller's address. */
export function renderOperation(op: StoredOperation, links: Links): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'compute#operation',
    id: op.id,
    name: op.name,
  };
  if (op.scope.kind === 'zone') out['zone'] = link(links, `projects/${op.project}/zones/${op.scope.name}`);
  if (op.scope.kind === 'region') out['region'] = link(links, `projects/${op.project}/regions/${op.scope.name}`);
  if (op.clientOperationId !== undefined) out['clientOperationId'] = op.clientOperationId;
  out['operationType'] = op.operationType;
  out['targetLink'] = link(links, op.targetPath);
  if (op.targetId !== undefined) out['targetId'] = op.targetId;
  out['status'] = op.status;
  if (op.statusMessage !== undefined) out['statusMessage'] = op.statusMessage;
  out['user'] = op.user;
  out['progress'] = op.progress;
  out['insertTime'] = rfc3339(op.insertTime);
  if (op.startTime !== undefined) out['startTime'] = rfc3339(op.startTime);
  if (op.endTime !== undefined) out['endTime'] = rfc3339(op.endTime);
  if (op.description !== undefined) out['description'] = op.description;
  if (op.errors !== undefined) {
    out['error'] = { errors: op.errors.map((entry) => ({ ...entry })) };
    out['httpErrorStatusCode'] = op.httpErrorStatusCode;
    out['httpErrorMessage'] = op.httpErrorMessage;
  }
  out['selfLink'] = link(links, operationPath(op));
  return out;
}
