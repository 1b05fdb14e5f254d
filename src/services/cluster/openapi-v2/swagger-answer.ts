/**
 * How `/openapi/v2` is answered, as kube-openapi's handler answers it: the media type picked from
 * `Accept` by quality (JSON, or the protobuf form under its deprecated and current names, both
 * answered as `application/com.github.proto-openapi.spec.v2.v1.0+protobuf`), nothing acceptable a
 * bare 406; `Vary: Accept`, an `Etag` that is the SHA-512 of the JSON text for both forms, and
 * `Last-Modified` from when the document was built, so a matching `If-None-Match` (or a not newer
 * `If-Modified-Since`) is a 304. Each form is made once per set of served documents.
 */
import { createHash } from 'node:crypto';
import { swaggerProtoOf } from './swagger-proto.ts';
import { swaggerDocumentOf } from './swagger.ts';

/** PROTOBUF_MEDIA_TYPE is the Content-Type of the protobuf answer. */
export const PROTOBUF_MEDIA_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTOBUF_SUBTYPES = new Set(['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf']);

/** SwaggerForm is the representation a request gets. */
export type SwaggerForm = 'json' | 'protobuf';

/** negotiateSwagger picks the form the apiserver would serve for `accept` (goautoneg's order: quality, then specificity), or undefined for its 406. */
export function negotiateSwagger(accept: string | undefined): SwaggerForm | undefined {
  const header = accept === undefined || accept.trim() === '' ? '*/*' : accept;
  const clauses = header
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.split(';');
      const [type = '', subType = ''] = range.trim().toLowerCase().split('/');
      const q = params.map((param) => param.trim().split('=')).find(([key]) => key === 'q')?.[1];
      return { type, subType, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((clause) => clause.q > 0 && !Number.isNaN(clause.q))
    .sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.index - b.index);
  for (const clause of clauses) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    if (clause.subType === 'json' || clause.subType === '*') return 'json';
    if (PROTOBUF_SUBTYPES.has(clause.subType)) return 'protobuf';
  }
  return undefined;
}

function specificity(clause: { readonly type: string; readonly subType: string }): number {
  return (clause.type === '*' ? 0 : 1) + (clause.subType === '*' ? 0 : 1);
}

/** SwaggerAnswer is the built document in both forms. */
export interface SwaggerAnswer {
  readonly etag: string;
  /** lastModified is the HTTP date the document was built at (second precision, as http.ServeContent compares). */
  readonly lastModified: string;
  body(form: SwaggerForm): string | Buffer;
}

const answers = new WeakMap<object, SwaggerAnswer>();

/**
 * swaggerAnswerOf builds (once per `owner`, the set of served v3 documents, which the runtime
 * makes anew when the served CRDs change) the v2 answer of `documents`.
 */
export function swaggerAnswerOf(owner: object, documents: () => readonly unknown[], version: string, now: number): SwaggerAnswer {
  const cached = answers.get(owner);
  if (cached !== undefined) return cached;
  // Only the JSON text is kept: the protobuf form, built on its first request, reads it back
  // rather than holding the document's object tree (many times the text's size) meanwhile.
  const json = JSON.stringify(swaggerDocumentOf(documents(), version));
  let protobuf: Buffer | undefined;
  const answer: SwaggerAnswer = {
    etag: createHash('sha512').update(json).digest('hex').toUpperCase(),
    lastModified: new Date(Math.floor(now / 1000) * 1000).toUTCString(),
    body(form) {
      if (form === 'json') return json;
      protobuf ??= Buffer.from(swaggerProtoOf(JSON.parse(json) as Record<string, unknown>));
      return protobuf;
    },
  };
  answers.set(owner, answer);
  return answer;
}

/** notModified tells whether the request's validators match the answer (If-None-Match first, as http.ServeContent checks). */
export function notModified(answer: SwaggerAnswer, ifNoneMatch: string | undefined, ifModifiedSince: string | undefined): boolean {
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === '*' || tag === `"${answer.etag}"`);
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Date.parse(answer.lastModified) <= since;
}
