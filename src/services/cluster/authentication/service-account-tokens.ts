/**
 * ServiceAccount tokens as the apiserver issues and checks them (upstream
 * `pkg/serviceaccount/{jwt,claims}.go`): RS256 JWTs with the issuer, audiences, times, a `jti`
 * and the private `kubernetes.io` claim naming the account (and the object the token is bound
 * to). A token authenticates while its signature is fogbank's, it has not expired on fogbank's
 * clock (with go-jose's one-minute leeway), one of its audiences is asked for, and its account
 * (and bound object) still exists with the uid it names; every failure has the apiserver's text,
 * which TokenReview shows and a request's 401 hides.
 *
 * A token's signature is checked once: the decoded claims are kept in a bounded map keyed by
 * the token, so a client sending the same token again costs a map lookup, the clock and one read
 * of its ServiceAccount.
 */
import { BoundedMap } from '../../../lib/bounded-map.ts';
import type { IdSource } from '../../../lib/ids.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { UserInfo } from '../cluster-auth.ts';
import { parseJwt, signJwt, verifyRs256 } from './jwt.ts';
import type { SigningKeySource } from './signing-key.ts';

/** SERVICE_ACCOUNT_ISSUER is the `iss` of every token (kubeadm's and kind's `--service-account-issuer`). */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** API_AUDIENCES are the apiserver's own audiences (`--api-audiences`, by default the issuer). */
export const API_AUDIENCES: readonly string[] = [SERVICE_ACCOUNT_ISSUER];

/** LEEWAY_MS is go-jose's `jwt.DefaultLeeway`, allowed on both ends of a token's validity. */
export const LEEWAY_MS = 60_000;

/** SERVICE_ACCOUNTS_GROUP is the group of every ServiceAccount. */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** Extra keys of a ServiceAccount user (k8s.io/apiserver `pkg/authentication/serviceaccount`). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';
const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

/** ObjectRef is `{name, uid}` as the `kubernetes.io` claim holds it. */
export interface ObjectRef {
  readonly name: string;
  readonly uid?: string;
}

/** BoundObjects are what a token may be bound to (at most one of pod and secret; a node alone or with its pod). */
export interface BoundObjects {
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

/** IssueRequest is a TokenRequest after defaulting and validation. */
export interface IssueRequest {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly audiences: readonly string[];
  /** The `exp` distance from now, in seconds. */
  readonly expirationSeconds: number;
  readonly bound: BoundObjects;
  /** Seconds after which the kubelet's extended pod-bound token should be refreshed (`warnafter`); 0 for none. */
  readonly warnAfterSeconds: number;
}

/** LookupObject reads a core v1 object (`serviceaccounts`, `pods`, `secrets`, `nodes`) by namespace and name; undefined when it does not exist or is not served. */
export type LookupObject = (resource: string, namespace: string, name: string) => Promise<KubeObject | undefined>;

/** TokenOutcome is what a token authenticator says: a user for some audiences, an error, or nothing (not its kind of token). */
export type TokenOutcome =
  | { readonly kind: 'user'; readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly kind: 'error'; readonly error: string }
  | { readonly kind: 'none' };

/** Claims are a verified token's claims that authentication reads. */
interface Claims {
  readonly audiences: readonly string[];
  readonly exp: number | undefined;
  readonly nbf: number | undefined;
  readonly jti: string;
  readonly namespace: string;
  readonly account: ObjectRef;
  readonly pod: ObjectRef | undefined;
  readonly secret: ObjectRef | undefined;
  readonly node: ObjectRef | undefined;
}

/** Checked is a token's signature verdict under the key with id `kid` (a new key, after a restore, checks again). */
type Checked =
  | { readonly kind: 'claims'; readonly claims: Claims; readonly kid: string }
  | { readonly kind: 'error'; readonly error: string; readonly kid: string }
  | { readonly kind: 'none' };

/** goQuoteList is Go's `%q` of a string slice: `["a" "b"]`. */
function goQuoteList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

function refOf(value: unknown): ObjectRef | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { name, uid } = value as Record<string, unknown>;
  return { name: typeof name === 'string' ? name : '', ...(typeof uid === 'string' && uid !== '' ? { uid } : {}) };
}

function numericDate(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function isGone(object: KubeObject, nowMs: number): boolean {
  const deleted = object.metadata.deletionTimestamp;
  return typeof deleted === 'string' && Date.parse(deleted) < nowMs - LEEWAY_MS;
}

/** ServiceAccountTokens issues and authenticates ServiceAccount tokens. */
export class ServiceAccountTokens {
  readonly #checked = new BoundedMap<string, Checked>(4096);

  constructor(
    readonly keys: SigningKeySource,
    readonly ids: IdSource,
    readonly lookup: LookupObject,
  ) {}

  /** issue signs a token for `request` at `nowMs`; its `exp` is whole seconds, as NumericDate writes it. */
  async issue(request: IssueRequest, nowMs: number): Promise<string> {
    const key = await this.keys.key();
    const now = Math.floor(nowMs / 1000);
    const kubernetes: Record<string, unknown> = {
      namespace: request.namespace,
      serviceaccount: { name: request.name, uid: request.uid },
      ...(request.bound.pod === undefined ? {} : { pod: request.bound.pod }),
      ...(request.bound.secret === undefined ? {} : { secret: request.bound.secret }),
      ...(request.bound.node === undefined ? {} : { node: request.bound.node }),
      ...(request.warnAfterSeconds === 0 ? {} : { warnafter: now + request.warnAfterSeconds }),
    };
    const claims = {
      aud: [...request.audiences],
      exp: now + request.expirationSeconds,
      iat: now,
      iss: SERVICE_ACCOUNT_ISSUER,
      jti: this.#uuid(),
      'kubernetes.io': kubernetes,
      nbf: now,
      sub: `system:serviceaccount:${request.namespace}:${request.name}`,
    };
    return signJwt(claims, key.privateKey, key.kid);
  }

  /**
   * authenticate reads a bearer token for `audiences` (default the API audiences) at `nowMs`:
   * `none` when it is no token of this issuer (another authenticator's, or no JWT at all).
   */
  async authenticate(token: string, nowMs: number, audiences: readonly string[] = API_AUDIENCES): Promise<TokenOutcome> {
    let checked = this.#checked.get(token);
    if (checked === undefined || (checked.kind !== 'none' && checked.kid !== this.keys.loaded?.kid)) {
      checked = await this.#check(token);
      this.#checked.set(token, checked);
    }
    if (checked.kind === 'none') return checked;
    if (checked.kind === 'error') return { kind: 'error', error: checked.error };
    const claims = checked.claims;
    const tokenAudiences = claims.audiences.length === 0 ? API_AUDIENCES : claims.audiences;
    const granted = tokenAudiences.filter((audience) => audiences.includes(audience));
    if (granted.length === 0) {
      return { kind: 'error', error: `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(audiences)}` };
    }
    // go-jose's Claims.Validate with DefaultLeeway.
    if (claims.nbf !== undefined && nowMs + LEEWAY_MS < claims.nbf * 1000) return { kind: 'error', error: 'service account token is not valid yet' };
    if (claims.exp !== undefined && nowMs - LEEWAY_MS > claims.exp * 1000) return { kind: 'error', error: 'service account token has expired' };
    const { namespace, account } = claims;
    const found = await this.lookup('serviceaccounts', namespace, account.name);
    if (found === undefined) return { kind: 'error', error: `serviceaccounts ${JSON.stringify(account.name)} not found` };
    if (isGone(found, nowMs)) return { kind: 'error', error: `service account ${namespace}/${account.name} has been deleted` };
    const uid = found.metadata.uid ?? '';
    if (uid !== (account.uid ?? '')) return { kind: 'error', error: `service account UID (${uid}) does not match claim (${account.uid ?? ''})` };
    const extra: Record<string, string[]> = {};
    for (const [resource, ref, label] of [
      ['secrets', claims.secret, 'secret'],
      ['pods', claims.pod, 'pod'],
    ] as const) {
      if (ref === undefined) continue;
      const object = await this.lookup(resource, namespace, ref.name);
      if (object === undefined || isGone(object, nowMs)) return { kind: 'error', error: 'service account token has been invalidated' };
      if ((ref.uid ?? '') !== (object.metadata.uid ?? '')) {
        return { kind: 'error', error: `${label} UID (${object.metadata.uid ?? ''}) does not match service account ${label} ref claim (${ref.uid ?? ''})` };
      }
    }
    if (claims.node !== undefined && claims.pod === undefined) {
      const node = await this.lookup('nodes', '', claims.node.name);
      if (node === undefined) return { kind: 'error', error: 'service account token has been invalidated' };
      if ((claims.node.uid ?? '') !== (node.metadata.uid ?? '')) {
        return { kind: 'error', error: `node UID (${node.metadata.uid ?? ''}) does not match service account node ref claim (${claims.node.uid ?? ''})` };
      }
    }
    // Extra keys in sorted order, as Go writes a map.
    if (claims.jti !== '') extra[CREDENTIAL_ID_KEY] = [`JTI=${claims.jti}`];
    if (claims.node !== undefined) {
      extra[NODE_NAME_KEY] = [claims.node.name];
      if (claims.node.uid !== undefined) extra[NODE_UID_KEY] = [claims.node.uid];
    }
    if (claims.pod !== undefined && claims.pod.uid !== undefined) {
      extra[POD_NAME_KEY] = [claims.pod.name];
      extra[POD_UID_KEY] = [claims.pod.uid];
    }
    return {
      kind: 'user',
      user: {
        name: `system:serviceaccount:${namespace}:${account.name}`,
        uid,
        groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`, 'system:authenticated'],
        extra: Object.fromEntries(Object.entries(extra).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      },
      audiences: granted,
    };
  }

  /** #check is everything about a token that does not change with time or the store: issuer, signature, claims. */
  async #check(token: string): Promise<Checked> {
    if (token.trimStart().startsWith('{')) return { kind: 'none' };
    const parts = parseJwt(token);
    // hasCorrectIssuer: a JWT of another issuer (or none at all) is another authenticator's.
    if (parts === undefined || parts.payload['iss'] !== SERVICE_ACCOUNT_ISSUER) return { kind: 'none' };
    const key = await this.keys.key();
    const kid = typeof parts.header['kid'] === 'string' ? parts.header['kid'] : '';
    if (kid !== '' && kid !== key.kid) return { kind: 'error', error: 'invalid signature, no keys found', kid: key.kid };
    if (!verifyRs256(parts, key.publicKey)) return { kind: 'error', error: 'go-jose/go-jose: error in cryptographic primitive', kid: key.kid };
    const payload = parts.payload;
    const aud = payload['aud'];
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((item): item is string => typeof item === 'string') : [];
    const kubernetes = payload['kubernetes.io'];
    const private_ = typeof kubernetes === 'object' && kubernetes !== null && !Array.isArray(kubernetes) ? (kubernetes as Record<string, unknown>) : {};
    return {
      kind: 'claims',
      kid: key.kid,
      claims: {
        audiences,
        exp: numericDate(payload['exp']),
        nbf: numericDate(payload['nbf']),
        jti: typeof payload['jti'] === 'string' ? payload['jti'] : '',
        namespace: typeof private_['namespace'] === 'string' ? private_['namespace'] : '',
        account: refOf(private_['serviceaccount']) ?? { name: '' },
        pod: refOf(private_['pod']),
        secret: refOf(private_['secret']),
        node: refOf(private_['node']),
      },
    };
  }

  #uuid(): string {
    const b = this.ids.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = b.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
