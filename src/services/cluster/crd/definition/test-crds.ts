/** Small CRDs shared by this folder's unit tests. */
import type { CustomResourceDefinition } from '../types.ts';

/** fooCrd is the sample-controller's Foo with a status subresource, in the shape a client sends. */
export function fooCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'foos.samplecontroller.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental-only' } },
    spec: {
      group: 'samplecontroller.k8s.io',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { deploymentName: { type: 'string' }, replicas: { type: 'integer', minimum: 1, maximum: 10 } } },
                status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
              },
            },
          },
          subresources: { status: {} },
        },
      ],
      names: { kind: 'Foo', plural: 'foos' },
      scope: 'Namespaced',
    },
  } as CustomResourceDefinition;
}

/** widgetCrd is a cluster of features: two versions, short names, categories, scale, columns. */
export function widgetCrd(): CustomResourceDefinition {
  const schema = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { replicas: { type: 'integer' }, size: { type: 'string' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }],
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          deprecated: true,
          deprecationWarning: 'example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget',
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      ],
    },
  } as CustomResourceDefinition;
}
