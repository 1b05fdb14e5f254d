/**
 * What Google's front end answers, the same for every Google API fogbank serves (compute, mail,
 * publisher), when a request's credential is missing or not recognised, or its token's scopes do
 * not cover the method: the fields of one error envelope entry (google-error-envelope.ts). Each
 * family makes its own typed error from them, so the texts, reasons and status words are written
 * once here.
 */

/** CREDENTIAL_HELP is the sentence Google appends to both credential errors. */
const CREDENTIAL_HELP =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

/** GoogleAuthErrorFields are one auth error's envelope fields. */
export interface GoogleAuthErrorFields {
  readonly httpStatus: 401 | 403;
  /** The lowerCamel `errors[].reason`. */
  readonly reason: string;
  /** The canonical status word. */
  readonly status: 'UNAUTHENTICATED' | 'PERMISSION_DENIED';
  readonly message: string;
  /** Further members of the `errors[]` entry (`location`, `locationType` of the credential errors). */
  readonly extra: Readonly<Record<string, string>>;
}

/** CredentialProblem is what is wrong with a request's credential: none was sent, or one Google does not recognise. */
export type CredentialProblem = 'missing' | 'invalid';

const AUTHORIZATION_HEADER = { location: 'Authorization', locationType: 'header' } as const;

const CREDENTIAL_ERRORS: Readonly<Record<CredentialProblem, GoogleAuthErrorFields>> = {
  missing: {
    httpStatus: 401,
    reason: 'required',
    status: 'UNAUTHENTICATED',
    message: `Request is missing required authentication credential. ${CREDENTIAL_HELP}`,
    extra: AUTHORIZATION_HEADER,
  },
  invalid: {
    httpStatus: 401,
    reason: 'authError',
    status: 'UNAUTHENTICATED',
    message: `Request had invalid authentication credentials. ${CREDENTIAL_HELP}`,
    extra: AUTHORIZATION_HEADER,
  },
};

/** credentialErrorFields is Google's 401 for a missing or an unrecognised credential. */
export function credentialErrorFields(problem: CredentialProblem): GoogleAuthErrorFields {
  return CREDENTIAL_ERRORS[problem];
}

/** INSUFFICIENT_SCOPES is Google's 403 for a token whose OAuth scopes do not cover the method. */
export const INSUFFICIENT_SCOPES: GoogleAuthErrorFields = {
  httpStatus: 403,
  reason: 'insufficientPermissions',
  status: 'PERMISSION_DENIED',
  message: 'Request had insufficient authentication scopes.',
  extra: {},
};

/**
 * scopeErrorInfo is the google.rpc.ErrorInfo detail the newer APIs add to INSUFFICIENT_SCOPES:
 * the API's service name and, where Google names it, the method's id.
 */
export function scopeErrorInfo(service: string, method?: string): Readonly<Record<string, unknown>> {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
    domain: 'googleapis.com',
    metadata: method === undefined ? { service } : { service, method },
  };
}

/** authChallengeHeaders are the headers of an answer with `httpStatus`: a 401 carries Google's Bearer challenge. */
export function authChallengeHeaders(httpStatus: number): Record<string, string> {
  return httpStatus === 401 ? { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' } : {};
}
