/**
 * The TokenRequest subresource, `POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token`
 * (upstream `pkg/registry/core/serviceaccount/storage/token.go`): `kubectl create token`. The
 * body is an authentication.k8s.io/v1 TokenRequest; the answer (201) is that request defaulted
 * (audiences → the API audiences, expirationSeconds → 3600), with `status.token` and
 * `status.expirationTimestamp`. Nothing is stored. Who may ask is RBAC's `create` on
 * `serviceaccounts/token`, checked for every request before this runs.
 */
import { builtinGoStructs } from '../builtin/go-json-fields.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../../lib/clock.ts';
import type { Vocabulary } from '../../../core/identifiers.ts';
import { invalid, type FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { parseWriteQuery, type Query } from '../apimachinery/query-options.ts';
import { decodeKindBody } from '../apimachinery/request-body.ts';
import { formatTime } from '../apimachinery/registry.ts';
import { sendSerialized } from '../apimachinery/send-serialized.ts';
import { badRequest, invalidObject, notFound, StatusError } from '../apimachinery/status.ts';
import { rethrowUndecodedBody } from '../apimachinery/undecoded-body.ts';
import { API_AUDIENCES, type BoundObjects, type LookupObject, type ObjectRef, type ServiceAccountTokens } from './service-account-tokens.ts';
import { TOKEN_REQUEST_SCHEMA_NAME, TOKEN_SCHEMAS } from './token-schemas.ts';

const KIND = 'TokenRequest';
const GROUP = 'authentication.k8s.io';
const GROUP_KIND = { group: GROUP, kind: KIND };

/** DEFAULT_EXPIRATION_SECONDS is v1's default `spec.expirationSeconds`. */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
/** The kubelet's projected-token expiry, which the apiserver extends to a year for pod-bound tokens (warning after it). */
const KUBELET_EXPIRATION_SECONDS = 3607;
const EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 3600;

/** validateTokenRequest is upstream's ValidateTokenRequest: the expiry between 10 minutes and 2^32 seconds. */
export function validateTokenRequest(expirationSeconds: number): FieldError[] {
  const errors: FieldError[] = [];
  if (expirationSeconds < 600) errors.push(invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > 2 ** 32) errors.push(invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  return errors;
}

interface TokenRequestBody {
  metadata?: { name?: string; namespace?: string; uid?: string };
  spec?: { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } };
}

/** decodeTokenRequest checks the body's type and decodes it as the apiserver's JSON decoder does. */
function decodeTokenRequest(request: FastifyRequest, groups: Vocabulary): { body: TokenRequestBody; warnings: string[] } {
  const options = parseWriteQuery((request.query ?? {}) as Query, 'CreateOptions');
  const raw = request.body;
  rethrowUndecodedBody(raw);
  const decoded = decodeKindBody(
    raw,
    { kind: KIND, version: 'v1', apiVersion: `${GROUP}/v1`, schemaName: TOKEN_REQUEST_SCHEMA_NAME, schemas: TOKEN_SCHEMAS },
    groups,
    options.fieldValidation,
  );
  return { body: decoded.value as TokenRequestBody, warnings: decoded.warnings };
}

/** TokenRequestDeps are what the subresource needs: the token service, the clock and object lookups. */
export interface TokenRequestDeps {
  readonly tokens: ServiceAccountTokens;
  readonly clock: Clock;
  readonly lookup: LookupObject;
  readonly groups: Vocabulary;
}

function refOf(object: KubeObject): ObjectRef {
  const uid = object.metadata.uid ?? '';
  return { name: object.metadata.name ?? '', ...(uid === '' ? {} : { uid }) };
}

/** gvkText is schema.GroupVersionKind's String(): `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
function gvkText(apiVersion: string, kind: string): string {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash === -1 ? '' : apiVersion.slice(0, slash);
  const version = slash === -1 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/** bind resolves `boundObjectRef` to the objects the token names, with the apiserver's refusals. */
async function bind(
  deps: TokenRequestDeps,
  namespace: string,
  account: string,
  ref: NonNullable<NonNullable<TokenRequestBody['spec']>['boundObjectRef']>,
): Promise<BoundObjects> {
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const name = ref.name ?? '';
  const core = !apiVersion.includes('/');
  const read = async (resource: string, ns: string): Promise<KubeObject> => {
    const object = await deps.lookup(resource, ns, name);
    if (object === undefined) throw notFound({ group: '', resource }, name);
    return object;
  };
  let bound: BoundObjects;
  let object: KubeObject;
  if (core && kind === 'Pod') {
    object = await read('pods', namespace);
    const spec = (object as { spec?: { serviceAccountName?: string; nodeName?: string } }).spec;
    if ((spec?.serviceAccountName ?? '') !== account) {
      throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(account)} to pod running with different serviceaccount name.`);
    }
    const nodeName = spec?.nodeName ?? '';
    let node: ObjectRef | undefined;
    if (nodeName !== '') {
      const found = await deps.lookup('nodes', '', nodeName);
      node = found === undefined ? { name: nodeName } : refOf(found);
    }
    bound = { pod: refOf(object), ...(node === undefined ? {} : { node }) };
  } else if (core && kind === 'Node') {
    object = await read('nodes', '');
    bound = { node: refOf(object) };
  } else if (core && kind === 'Secret') {
    object = await read('secrets', namespace);
    bound = { secret: refOf(object) };
  } else {
    throw badRequest(`cannot bind token to object of type ${gvkText(apiVersion, kind)}`);
  }
  if ((ref.uid ?? '') !== '' && ref.uid !== (object.metadata.uid ?? '')) {
    throw new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${kind} ${JSON.stringify(name)}: the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      { name, kind },
    );
  }
  return bound;
}

/** registerTokenRequest serves the TokenRequest subresource of ServiceAccounts. */
export function registerTokenRequest(app: FastifyInstance, deps: TokenRequestDeps): void {
  app.post('/api/v1/namespaces/:namespace/serviceaccounts/:name/token', async (request, reply) => {
    const { namespace, name } = request.params as { namespace: string; name: string };
    const { body, warnings } = decodeTokenRequest(request, deps.groups);
    const meta = body.metadata ?? {};
    if ((meta.name ?? '') !== '' && meta.name !== name) {
      throw invalidObject(GROUP_KIND, name, [invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
    }
    if ((meta.namespace ?? '') !== '' && meta.namespace !== namespace) {
      throw invalidObject(GROUP_KIND, name, [invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
    }
    const account = await deps.lookup('serviceaccounts', namespace, name);
    if (account === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
    const uid = account.metadata.uid ?? '';
    if ((meta.uid ?? '') !== '' && meta.uid !== uid) {
      throw new StatusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${KIND}.${GROUP} ${JSON.stringify(name)}: the UID in the token request (${meta.uid}) does not match the UID of the service account (${uid})`,
        { name, group: GROUP, kind: KIND },
      );
    }
    const spec = body.spec ?? {};
    const audiences = spec.audiences === undefined || spec.audiences.length === 0 ? [...API_AUDIENCES] : spec.audiences;
    const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    const now = deps.clock.now();
    const errors = validateTokenRequest(expirationSeconds);
    if (errors.length > 0) throw invalidObject(GROUP_KIND, '', errors);
    const bound = spec.boundObjectRef === undefined ? {} : await bind(deps, namespace, name, spec.boundObjectRef);
    // The kubelet's pod-bound tokens for the API's own audiences live a year, with a warning after the asked time.
    const extended =
      bound.pod !== undefined && expirationSeconds === KUBELET_EXPIRATION_SECONDS && audiences.every((audience) => API_AUDIENCES.includes(audience));
    const token = await deps.tokens.issue(
      {
        namespace,
        name,
        uid,
        audiences,
        expirationSeconds: extended ? EXTENDED_EXPIRATION_SECONDS : expirationSeconds,
        bound,
        warnAfterSeconds: extended ? expirationSeconds : 0,
      },
      now,
    );
    const answer = {
      kind: KIND,
      apiVersion: `${GROUP}/v1`,
      metadata: { name, namespace, creationTimestamp: formatTime(now) },
      spec: { audiences, expirationSeconds, ...(spec.boundObjectRef === undefined ? {} : { boundObjectRef: spec.boundObjectRef }) },
      status: { token, expirationTimestamp: formatTime(Math.floor(now / 1000) * 1000 + expirationSeconds * 1000) },
    };
    reply.code(201).header('cache-control', 'no-cache, private');
    if (warnings.length > 0)
      reply.header(
        'warning',
        warnings.map((text) => `299 - ${JSON.stringify(text)}`),
      );
    return sendSerialized(reply, 'application/json', JSON.stringify(builtinGoStructs.encode(TOKEN_REQUEST_SCHEMA_NAME, answer)));
  });
}
