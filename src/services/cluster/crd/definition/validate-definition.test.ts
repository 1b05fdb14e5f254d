import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { CustomResourceDefinition } from '../types.ts';
import { acceptNames } from './accept-names.ts';
import { defaultCustomResourceDefinition } from './defaults.ts';
import { fooCrd, widgetCrd } from './test-crds.ts';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus } from './validate-definition.ts';

function texts(crd: CustomResourceDefinition, old?: CustomResourceDefinition): string[] {
  return validateCustomResourceDefinition(crd, old).map(fieldErrorText);
}

function stored(crd: CustomResourceDefinition): CustomResourceDefinition {
  const defaulted = defaultCustomResourceDefinition(crd, undefined);
  defaulted.status = acceptNames(defaulted, [], '2026-01-01T00:00:00Z');
  return defaulted;
}

describe('validateCustomResourceDefinition', () => {
  it('accepts the sample-controller Foo and a multi-version CRD, defaulting singular and listKind first', () => {
    assert.deepEqual(texts(fooCrd()), []);
    assert.deepEqual(texts(widgetCrd()), []);
  });

  it('checks the name, group and scope', () => {
    const crd = widgetCrd();
    crd.metadata.name = 'widget.example.com';
    crd.spec.group = 'example';
    crd.spec.scope = 'Global';
    assert.deepEqual(texts(crd), [
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    ]);
  });

  it('requires the approval annotation in protected groups', () => {
    const crd = fooCrd();
    crd.metadata.annotations = {};
    assert.deepEqual(texts(crd), [
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    crd.metadata.annotations = { 'api-approved.kubernetes.io': 'maybe' };
    assert.deepEqual(texts(crd), [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    crd.metadata.annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' };
    assert.deepEqual(texts(crd), []);
  });

  it('needs exactly one storage version, printing the versions as Go does', () => {
    const crd = fooCrd();
    crd.spec.versions[0]!.storage = false;
    assert.deepEqual(texts(crd), [
      'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:"v1alpha1", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}}: must have exactly one version marked as storage version',
      'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ]);
  });

  it('reports duplicate and malformed version names, and versions without a schema where the others have one', () => {
    const crd = widgetCrd();
    crd.spec.versions[1]!.name = 'V1';
    delete crd.spec.versions[1]!.schema;
    const errors = texts(crd);
    assert.deepEqual(errors, [
      'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
      "spec.versions[1].name: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    const twice = widgetCrd();
    twice.spec.versions[1]!.name = 'v1';
    assert.match(
      texts(twice)[0] ?? '',
      /^spec\.versions: Invalid value: \[\]apiextensions\.CustomResourceDefinitionVersion\{.*Name:"v1".*DeprecationWarning:\(\*string\)\(0xc[0-9a-f]+\).*\}: must contain unique version names$/,
    );
  });

  it('checks names: required, DNS-1035 labels, kind and listKind distinct', () => {
    const crd = widgetCrd();
    crd.spec.names = { plural: 'Widgets', kind: 'Widget', listKind: 'Widget', shortNames: ['w_d'], categories: ['All'] };
    crd.metadata.name = 'Widgets.example.com';
    const label =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    assert.deepEqual(texts(crd), [
      `spec.names.plural: Invalid value: "Widgets": ${label}`,
      `spec.names.shortNames[0]: Invalid value: "w_d": ${label}`,
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
      `spec.names.categories[0]: Invalid value: "All": ${label}`,
    ]);
    const missing = widgetCrd();
    missing.spec.names = { plural: '', kind: '' };
    assert.deepEqual(texts(missing).slice(1), [
      'spec.names.plural: Required value',
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
    ]);
  });

  it('checks printer columns per version, and hoisted subresources at the top level', () => {
    const crd = widgetCrd();
    crd.spec.versions[0]!.additionalPrinterColumns = [{ name: '', type: 'text', format: 'money', jsonPath: 'spec.size' }];
    for (const version of crd.spec.versions)
      version.subresources = {
        status: {},
        scale: { specReplicasPath: '.status.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: '.metadata.labels' },
      };
    assert.deepEqual(texts(crd), [
      'spec.versions[0].additionalPrinterColumns[0].name: Required value',
      'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
      'spec.versions[0].additionalPrinterColumns[0].format: Invalid value: "money": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .',
      'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ]);
  });

  it('checks deprecation warnings, preserveUnknownFields and conversion', () => {
    const crd = widgetCrd();
    crd.spec.versions[0]!.deprecationWarning = 'old';
    crd.spec.versions[1]!.deprecationWarning = 'bad\nline';
    crd.spec.preserveUnknownFields = true;
    crd.spec.conversion = { strategy: 'Webhook' };
    assert.deepEqual(texts(crd), [
      'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions',
      'spec.versions[1].deprecationWarning: Invalid value: "bad\\nline": must only contain printable UTF-8 characters; control character found at index 3',
      'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
    const webhook = widgetCrd();
    webhook.spec.conversion = {
      strategy: 'Webhook',
      webhook: { clientConfig: { url: 'http://user@example.com/convert?x=1' }, conversionReviewVersions: ['v2'] },
    };
    assert.deepEqual(texts(webhook), [
      'spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'spec.conversion.webhookClientConfig.url: Invalid value: "user": user information is not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ]);
    const none = widgetCrd();
    none.spec.conversion = { strategy: 'None', webhook: { clientConfig: { service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v1'] } };
    assert.deepEqual(texts(none), [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
  });

  it('checks selectable fields against the schema', () => {
    const crd = widgetCrd();
    for (const version of crd.spec.versions)
      version.selectableFields = [
        { jsonPath: '.spec.size' },
        { jsonPath: '.spec.replicas' },
        { jsonPath: '.spec' },
        { jsonPath: '.spec.color' },
        { jsonPath: '.spec.size' },
      ];
    assert.deepEqual(texts(crd), [
      'spec.selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[3].jsonPath: Invalid value: ".spec.color": is an invalid path: does not refer to a valid field',
      'spec.selectableFields[4].jsonPath: Duplicate value: ".spec.size"',
    ]);
  });

  it("runs the structural and CEL checks at the schema's internal path: top level when every version shares it, per version otherwise", () => {
    const shared = fooCrd();
    delete shared.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['spec']!.type;
    assert.deepEqual(texts(shared), ['spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
    const own = widgetCrd();
    own.spec.versions[1]!.schema = {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.replicas >' }] } } },
    };
    const [compile] = texts(own);
    assert.match(
      compile ?? '',
      /^spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.replicas >".*\}: compilation failed: ERROR: <input>:1:15: Syntax error: /s,
    );
  });

  it('on update keeps group and plural, and scope and kind once Established', () => {
    const old = stored(widgetCrd());
    const next = structuredClone(old);
    next.spec.group = 'example.org';
    next.metadata.name = 'widgets.example.org';
    next.spec.scope = 'Cluster';
    next.spec.names.kind = 'Gizmo';
    next.spec.names.listKind = 'GizmoList';
    assert.deepEqual(texts(next, old), [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gizmo": field is immutable',
      'spec.group: Invalid value: "example.org": field is immutable',
    ]);
  });

  it('on update requires the storage version among the stored ones, and stored versions to exist', () => {
    const old = stored(widgetCrd());
    const next = structuredClone(old);
    next.status = { ...next.status, storedVersions: ['v1', 'v0'] };
    assert.deepEqual(texts(next, old), ['status.storedVersions[1]: Invalid value: "v0": must appear in spec.versions']);
  });

  it('survives hostile shapes without throwing', () => {
    const hostile = JSON.parse(
      '{"metadata":{"name":"x"},"spec":{"group":"a.b","names":{"plural":"__proto__","kind":"constructor"},"scope":"Cluster","versions":[{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":[{}],"schema":{"openAPIV3Schema":{"type":"object"}}}]}}',
    );
    assert.ok(texts(hostile).length > 0);
    assert.ok(Array.isArray(validateCustomResourceDefinition({ metadata: {}, spec: {} } as CustomResourceDefinition, undefined)));
  });
});

describe('validateCustomResourceDefinitionStatus', () => {
  it('checks only the accepted names, as a /status write is checked', () => {
    const crd = stored(widgetCrd());
    crd.spec.scope = 'Global';
    crd.status = { ...crd.status, acceptedNames: { plural: 'Widgets', kind: 'Widget' } };
    assert.deepEqual(validateCustomResourceDefinitionStatus(crd).map(fieldErrorText), [
      "status.acceptedNames.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe('validateCustomResourceDefinition on update of a schema with an expensive rule', () => {
  const expensive = (): CustomResourceDefinition => {
    const crd = widgetCrd();
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            tags: {
              type: 'array',
              maxItems: 300,
              items: { type: 'string', maxLength: 1000 },
              'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists(y, x == y))' }],
            },
          },
        },
      },
    };
    crd.spec.versions = [{ ...crd.spec.versions[0]!, schema: { openAPIV3Schema: schema } }];
    return crd;
  };
  const perExpression =
    /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[tags\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of \d+(\.\d+)?x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/;

  it('holds a new schema to the per-expression limit, but not an unchanged one (the apiserver ratchets it)', () => {
    const created = texts(expensive());
    assert.equal(created.length, 1);
    assert.match(created[0] ?? '', perExpression);
    const old = stored(expensive());
    const relabelled = structuredClone(old);
    relabelled.spec.names.categories = ['all', 'gadgets'];
    assert.deepEqual(texts(relabelled, old), []);
    const changed = structuredClone(old);
    changed.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['spec']!.description = 'now documented';
    assert.match(texts(changed, old)[0] ?? '', perExpression);
  });
});
