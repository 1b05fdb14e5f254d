import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import { faultOf } from '../../../core/faults/applied.ts';
import type { FaultOperationError } from '../../../core/faults/rule.ts';
import { ComputeError } from '../shared/errors.ts';

/**
 * Injected asynchronous failures (a fault rule's `operationError`): the mutation is accepted as
 * usual, and its Operation ends DONE with the rule's error instead of doing the work, as a real
 * quota failure does — `error.errors[0]` with `code`, `message` and `errorDetails[0].quotaInfo`
 * (where gcloud reads it), plus `httpErrorStatusCode`/`httpErrorMessage`.
 */

/** INJECTED_FAILURE_ACTION is the stored work of an Operation that is to fail with an injected error. */
export const INJECTED_FAILURE_ACTION = 'fault.operationError';

const pending = new AsyncLocalStorage<FaultOperationError>();

/** injectedOperationError is the operationError of the fault rule that fired for the request being handled, if any. */
export function injectedOperationError(): FaultOperationError | undefined {
  return pending.getStore();
}

/**
 * useInjectedOperationErrors runs each compute handler whose request a fault rule with an
 * `operationError` fired for inside that error's context, so the Operation the handler starts
 * (OperationService.start) takes it. A request no such rule fired for runs its handler as is.
 */
export function useInjectedOperationErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request, reply) {
      const error = faultOf(request)?.operationError;
      return error === undefined ? handler.call(this, request, reply) : pending.run(error, () => handler.call(this, request, reply));
    };
  });
}

/** InjectedOperationFailure is the ComputeError an injected Operation ends with, carrying its `errorDetails`. */
export class InjectedOperationFailure extends ComputeError {
  constructor(
    error: FaultOperationError,
    /** The `errorDetails[]` of the Operation's error entry (`quotaInfo` first, where gcloud reads it). */
    readonly errorDetails: readonly Record<string, unknown>[] | undefined,
  ) {
    super(error.httpStatus ?? (error.code === 'QUOTA_EXCEEDED' ? 403 : 400), 'invalid', error.message ?? defaultMessage(error), error.code);
  }
}

/** injectedFailure turns a stored operationError into the failure its Operation ends with. */
export function injectedFailure(payload: unknown): InjectedOperationFailure {
  const error = payload as FaultOperationError;
  const quota = error.quotaInfo;
  return new InjectedOperationFailure(
    error,
    quota === undefined
      ? undefined
      : [
          {
            quotaInfo: {
              metricName: quota.metricName,
              limitName: quota.limitName,
              ...(quota.dimensions === undefined ? {} : { dimensions: quota.dimensions }),
              limit: quota.limit,
            },
          },
        ],
  );
}

/**
 * defaultMessage is the real service's text when the rule gives none: for QUOTA_EXCEEDED
 * `Quota 'CPUS' exceeded.  Limit: 8.0 in region us-central1.` (two spaces, the limit as a float),
 * the quota named from the metric (`compute.googleapis.com/instance_templates` → INSTANCE_TEMPLATES).
 */
function defaultMessage(error: FaultOperationError): string {
  const quota = error.quotaInfo;
  if (error.code !== 'QUOTA_EXCEEDED' || quota === undefined) return `Operation failed with ${error.code}.`;
  const name = (quota.metricName.split('/').pop() ?? quota.metricName).toUpperCase();
  const limit = Number.isInteger(quota.limit) ? quota.limit.toFixed(1) : String(quota.limit);
  const region = quota.dimensions?.['region'];
  return `Quota '${name}' exceeded.  Limit: ${limit} ${region === undefined ? 'globally' : `in region ${region}`}.`;
}
