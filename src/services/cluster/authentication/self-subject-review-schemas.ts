/**
 * The authentication.k8s.io/v1 types served here (SelfSubjectReview and what it holds), for the
 * group-version's OpenAPI v3 document, with the upstream descriptions.
 */
import type { SchemaSet } from '../apimachinery/schema.ts';
import { META_SCHEMAS, TYPE_FIELDS } from '../resources/meta-schemas.ts';

const AUTHENTICATION = 'io.k8s.api.authentication.v1';

/** SELF_SUBJECT_REVIEW_SCHEMA_NAME is the component name of SelfSubjectReview. */
export const SELF_SUBJECT_REVIEW_SCHEMA_NAME = `${AUTHENTICATION}.SelfSubjectReview`;

/** AUTHENTICATION_V1_SCHEMAS describe authentication.k8s.io/v1 as served here. */
export const AUTHENTICATION_V1_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [SELF_SUBJECT_REVIEW_SCHEMA_NAME]: {
    type: 'object',
    goName: 'SelfSubjectReview',
    description:
      'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request. When using impersonation, users will receive the user info of the user being impersonated.  If impersonation or request header authentication is used, any extra keys will have their case ignored and returned as lowercase.',
    properties: { ...TYPE_FIELDS, status: { $ref: `${AUTHENTICATION}.SelfSubjectReviewStatus` } },
  },
  [`${AUTHENTICATION}.SelfSubjectReviewStatus`]: {
    type: 'object',
    goName: 'SelfSubjectReviewStatus',
    description: 'SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.',
    properties: { userInfo: { $ref: `${AUTHENTICATION}.UserInfo` } },
  },
  [`${AUTHENTICATION}.UserInfo`]: {
    type: 'object',
    goName: 'UserInfo',
    description: 'UserInfo holds the information about the user needed to implement the user.Info interface.',
    properties: {
      extra: { type: 'map', values: { type: 'array', items: { type: 'string' } }, description: 'Any additional information provided by the authenticator.' },
      groups: { type: 'array', items: { type: 'string' }, listType: 'atomic', description: 'The names of groups this user is a part of.' },
      uid: {
        type: 'string',
        description:
          'A unique value that identifies this user across time. If this user is deleted and another user by the same name is added, they will have different UIDs.',
      },
      username: { type: 'string', description: 'The name that uniquely identifies this user among all active users.' },
    },
  },
};
