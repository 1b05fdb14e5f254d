import { loadOnFirstUse } from '../../core/lazy.ts';
import type { PolicyEvaluationFactory } from '../../core/policy-evaluation.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { authenticateAdmin } from './admin-auth.ts';
import { controlErrorProblem, renderControlError } from './error-serializer.ts';
import { SERVER_FILE, serverFileText } from './server-file.ts';

/** CONTROL_PREFIX is the admin API's address; the publisher's download pages keep the longer `/_fogbank/publisher`. */
export const CONTROL_PREFIX = '/_fogbank';

/**
 * controlService is the admin API (issue 28): the test controls of a running server — its clock
 * and request journal — under `/_fogbank`, for the admin token only, in a JSON dialect of its own
 * (errors.ts). It drives what core hands it in `context.control` and imports no other family.
 * Its own requests are not journaled: reading the journal does not fill it. Security policies are
 * evaluated by the family among `families` that declares `policyEvaluation` (compute), loaded on
 * the first request that needs it.
 */
export function controlService(families: readonly ServiceDefinition[]): ServiceDefinition {
  const evaluator = families.find((family) => family.policyEvaluation !== undefined);
  const policyEvaluation = loadOnFirstUse(async (): Promise<PolicyEvaluationFactory | undefined> => evaluator?.policyEvaluation?.());
  return {
    name: 'control',
    pathPrefixes: [CONTROL_PREFIX],
    journaled: false,
    renderError: renderControlError,
    errorBodyProblem: controlErrorProblem,
    // The command line's client commands find the server of a data directory here.
    clientFiles: (site) => [{ name: SERVER_FILE, text: serverFileText(site.url) }],
    // An unknown path is the admin's only too: a stranger gets 401, not 404.
    screenUnknownPath(request, context) {
      authenticateAdmin(request, context.auth);
    },
    async register(app, context) {
      return (await import('./register.ts')).registerControl(app, context, policyEvaluation);
    },
  };
}
