/**
 * The authentication.k8s.io/v1 token types (TokenRequest, TokenReview and what they hold), beside
 * SelfSubjectReview in the group-version's schema set, with the upstream descriptions. They
 * decode request bodies (Go-worded type errors, unknown fields per `fieldValidation`) and feed
 * the OpenAPI document.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { TYPE_FIELDS } from '../resources/meta-schemas.ts';
import { AUTHENTICATION_V1_SCHEMAS } from './self-subject-review-schemas.ts';

const AUTHENTICATION = 'io.k8s.api.authentication.v1';

/** TOKEN_REQUEST_SCHEMA_NAME and TOKEN_REVIEW_SCHEMA_NAME are the component names of the two kinds. */
export const TOKEN_REQUEST_SCHEMA_NAME = `${AUTHENTICATION}.TokenRequest`;
export const TOKEN_REVIEW_SCHEMA_NAME = `${AUTHENTICATION}.TokenReview`;

const str = (description: string): Schema => ({ type: 'string', description });
const audiences = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, listType: 'atomic', description });

/** TOKEN_SCHEMAS are authentication.k8s.io/v1 as served here (the reviews and TokenRequest). */
export const TOKEN_SCHEMAS: SchemaSet = {
  ...AUTHENTICATION_V1_SCHEMAS,
  [TOKEN_REQUEST_SCHEMA_NAME]: {
    type: 'object',
    goName: 'TokenRequest',
    description: 'TokenRequest requests a token for a given service account.',
    required: ['spec'],
    properties: { ...TYPE_FIELDS, spec: { $ref: `${AUTHENTICATION}.TokenRequestSpec` }, status: { $ref: `${AUTHENTICATION}.TokenRequestStatus` } },
  },
  [`${AUTHENTICATION}.TokenRequestSpec`]: {
    type: 'object',
    goName: 'TokenRequestSpec',
    description: 'TokenRequestSpec contains client provided parameters of a token request.',
    required: ['audiences'],
    properties: {
      audiences: audiences(
        'Audiences are the intendend audiences of the token. A recipient of a token must identify themself with an identifier in the list of audiences of the token, and otherwise should reject the token. A token issued for multiple audiences may be used to authenticate against any of the audiences listed but implies a high degree of trust between the target audiences.',
      ),
      expirationSeconds: {
        type: 'integer',
        format: 'int64',
        description:
          "ExpirationSeconds is the requested duration of validity of the request. The token issuer may return a token with a different validity duration so a client needs to check the 'expiration' field in a response.",
      },
      boundObjectRef: { $ref: `${AUTHENTICATION}.BoundObjectReference` },
    },
  },
  [`${AUTHENTICATION}.BoundObjectReference`]: {
    type: 'object',
    goName: 'BoundObjectReference',
    description: 'BoundObjectReference is a reference to an object that a token is bound to.',
    properties: {
      kind: str("Kind of the referent. Valid kinds are 'Pod' and 'Secret'."),
      apiVersion: str('API version of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
    },
  },
  [`${AUTHENTICATION}.TokenRequestStatus`]: {
    type: 'object',
    goName: 'TokenRequestStatus',
    description: 'TokenRequestStatus is the result of a token request.',
    required: ['token', 'expirationTimestamp'],
    properties: {
      token: str('Token is the opaque bearer token.'),
      expirationTimestamp: { type: 'string', format: 'date-time', description: 'ExpirationTimestamp is the time of expiration of the returned token.' },
    },
  },
  [TOKEN_REVIEW_SCHEMA_NAME]: {
    type: 'object',
    goName: 'TokenReview',
    description:
      'TokenReview attempts to authenticate a token to a known user. Note: TokenReview requests may be cached by the webhook token authenticator plugin in the kube-apiserver.',
    required: ['spec'],
    properties: { ...TYPE_FIELDS, spec: { $ref: `${AUTHENTICATION}.TokenReviewSpec` }, status: { $ref: `${AUTHENTICATION}.TokenReviewStatus` } },
  },
  [`${AUTHENTICATION}.TokenReviewSpec`]: {
    type: 'object',
    goName: 'TokenReviewSpec',
    description: 'TokenReviewSpec is a description of the token authentication request.',
    properties: {
      token: str('Token is the opaque bearer token.'),
      audiences: audiences(
        'Audiences is a list of the identifiers that the resource server presented with the token identifies as. Audience-aware token authenticators will verify that the token was intended for at least one of the audiences in this list. If no audiences are provided, the audience will default to the audience of the Kubernetes apiserver.',
      ),
    },
  },
  [`${AUTHENTICATION}.TokenReviewStatus`]: {
    type: 'object',
    goName: 'TokenReviewStatus',
    description: 'TokenReviewStatus is the result of the token authentication request.',
    properties: {
      authenticated: { type: 'boolean', description: 'Authenticated indicates that the token was associated with a known user.' },
      user: { $ref: `${AUTHENTICATION}.UserInfo` },
      audiences: audiences(
        'Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token. An identifier is any identifier in the intersection of the TokenReviewSpec audiences and the token\'s audiences. A client of the TokenReview API that sets the spec.audiences field should validate that a compatible audience identifier is returned in the status.audiences field to ensure that the TokenReview server is audience aware. If a TokenReview returns an empty status.audience field where status.authenticated is "true", the token is valid against the audience of the Kubernetes API server.',
      ),
      error: str("Error indicates that the token couldn't be checked"),
    },
  },
};
