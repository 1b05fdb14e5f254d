/**
 * Schemas the CRD schema tests share: the sample controller's Foo (kubernetes/sample-controller
 * v0.32.0, artifacts/examples/crd-status-subresource.yaml, Apache-2.0) and one in the shape of
 * cert-manager's Certificate v1 (a reduced copy of its structure, written for these tests).
 */
import type { JSONSchemaProps } from '../types.ts';

/** FOO is the sample controller's Foo schema. */
export const FOO: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { deploymentName: { type: 'string' }, replicas: { type: 'integer', minimum: 1, maximum: 10 } } },
    status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
  },
};

/** CERTIFICATE_LIKE is a schema in the shape of cert-manager's Certificate (v1): nested objects, enums, list types, int-or-string-free, status conditions as a map list. */
export const CERTIFICATE_LIKE: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['issuerRef', 'secretName'],
      properties: {
        commonName: { type: 'string' },
        dnsNames: { type: 'array', items: { type: 'string' } },
        duration: { type: 'string' },
        renewBefore: { type: 'string' },
        isCA: { type: 'boolean' },
        issuerRef: {
          type: 'object',
          required: ['name'],
          properties: { group: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
        },
        privateKey: {
          type: 'object',
          properties: {
            algorithm: { type: 'string', enum: ['RSA', 'ECDSA', 'Ed25519'] },
            encoding: { type: 'string', enum: ['PKCS1', 'PKCS8'] },
            rotationPolicy: { type: 'string', enum: ['Never', 'Always'] },
            size: { type: 'integer' },
          },
        },
        secretName: { type: 'string' },
        secretTemplate: {
          type: 'object',
          properties: {
            annotations: { type: 'object', additionalProperties: { type: 'string' } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
        usages: { type: 'array', items: { type: 'string', enum: ['signing', 'digital signature', 'server auth', 'client auth'] } },
        revisionHistoryLimit: { type: 'integer', format: 'int32' },
      },
    },
    status: {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-list-type': 'map',
          items: {
            type: 'object',
            required: ['status', 'type'],
            properties: {
              lastTransitionTime: { type: 'string', format: 'date-time' },
              message: { type: 'string' },
              observedGeneration: { type: 'integer', format: 'int64' },
              reason: { type: 'string' },
              status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
              type: { type: 'string' },
            },
          },
        },
        notAfter: { type: 'string', format: 'date-time' },
        revision: { type: 'integer' },
      },
    },
  },
};
