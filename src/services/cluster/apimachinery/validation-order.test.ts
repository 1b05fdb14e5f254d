import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

// The order of a 422's field errors: upstream's Validate<Kind> functions begin with ValidateObjectMeta
// (ValidateConfigMap, ValidateDeployment, validateValidatingAdmissionPolicy, …), rest.BeforeUpdate puts its
// common metadata checks before the kind's, and core/v1 Events (ValidateEventCreate) check the legacy
// rules alone, leaving metadata to rest.BeforeCreate's common check on an otherwise valid object.
describe('the order of field errors in a 422', () => {
  let h: ClusterHarness;
  const fields = (body: { details: { causes: { field: string }[] } }) => body.details.causes.map((cause) => cause.field);
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  it("lists metadata errors before the kind's own on create", async () => {
    const configMap = await h.call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'Bad_Name', labels: { '-x': 'y' } },
      data: { 'bad key!': 'v' },
    });
    assert.equal(configMap.status, 422);
    assert.deepEqual(fields(configMap.body), ['metadata.name', 'metadata.labels', 'data[bad key!]']);
    const deployment = await h.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'Bad' },
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    assert.deepEqual(fields(deployment.body), ['metadata.name', 'spec.template.metadata.labels']);
    const policy = await h.call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: 'Bad' },
      spec: { validations: [] },
    });
    assert.deepEqual(fields(policy.body), ['metadata.name', 'spec.matchConstraints', 'spec.validations', 'spec.auditAnnotations']);
    assert.match(
      policy.body.message,
      /^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "Bad" is invalid: \[metadata\.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain/,
    );
  });

  it('checks a core/v1 Event by the legacy rules first, its metadata only once they pass', async () => {
    const event = (namespace: string) => ({
      metadata: { name: 'e', labels: { '-x': 'y' } },
      involvedObject: { kind: 'Pod', name: 'p', namespace },
      reason: 'r',
    });
    const legacy = await h.call('POST', '/api/v1/namespaces/default/events', event('other'));
    assert.equal(legacy.status, 422);
    assert.deepEqual(fields(legacy.body), ['involvedObject.namespace']);
    const metadata = await h.call('POST', '/api/v1/namespaces/default/events', event('default'));
    assert.equal(metadata.status, 422);
    assert.deepEqual(fields(metadata.body), ['metadata.labels']);
  });
});
