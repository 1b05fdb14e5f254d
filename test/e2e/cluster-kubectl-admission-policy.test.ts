import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-admission-admin';

const policyYaml = (name: string, validations: string[], extra: string[] = []): string =>
  [
    'apiVersion: admissionregistration.k8s.io/v1',
    'kind: ValidatingAdmissionPolicy',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  failurePolicy: Fail',
    ...extra,
    '  matchConstraints:',
    '    resourceRules:',
    '    - apiGroups: ["apps"]',
    '      apiVersions: ["v1"]',
    '      operations: ["CREATE", "UPDATE"]',
    '      resources: ["deployments"]',
    '  validations:',
    ...validations,
    '',
  ].join('\n');

const bindingYaml = (name: string, policy: string, actions: string, extra: string[] = []): string =>
  [
    'apiVersion: admissionregistration.k8s.io/v1',
    'kind: ValidatingAdmissionPolicyBinding',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  policyName: ${policy}`,
    `  validationActions: [${actions}]`,
    ...extra,
    '',
  ].join('\n');

describe('ValidatingAdmissionPolicy with the real kubectl', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const apply = async (name: string, text: string): Promise<void> => {
    const path = join(kubectl.dir, name);
    writeFileSync(path, text);
    const result = await kubectl.run(['apply', '-f', path]);
    assert.equal(result.code, 0, result.stderr);
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('refuses `kubectl create deployment` without a team label with the apiserver text, and admits a labelled one', async () => {
    await apply(
      'require-team.yaml',
      policyYaml('require-team', [
        '  - expression: "has(object.metadata.labels) && \'team\' in object.metadata.labels"',
        '    message: every Deployment needs a team label',
      ]),
    );
    await apply('require-team-binding.yaml', bindingYaml('require-team-binding', 'require-team', 'Deny'));
    const refused = await kubectl.run(['create', 'deployment', 'web', '--image=nginx']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `error: failed to create deployment: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'require-team' with binding 'require-team-binding' denied request: every Deployment needs a team label\n`,
    );
    const labelled = await kubectl.run(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', labels: { team: 'a' } },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      }),
    });
    assert.equal(labelled.stdout, 'deployment.apps/web created\n', labelled.stderr);
    // The refusal and the admission both show in the request journal.
    const journal = await server.control.requests.read({ family: 'cluster' });
    assert.ok(journal.some((entry) => entry.httpMethod === 'POST' && entry.status === 422 && entry.path.endsWith('/deployments')));
    assert.equal((await kubectl.run(['delete', 'validatingadmissionpolicybinding', 'require-team-binding'])).code, 0);
  });

  it("Warn prints kubectl's Warning: line and admits; Audit writes the failure into the journal entry", async () => {
    await apply(
      'small.yaml',
      policyYaml('small', ['  - expression: object.spec.replicas <= 2', "    messageExpression: \"'replicas ' + string(object.spec.replicas) + ' > 2'\""]),
    );
    await apply('small-binding.yaml', bindingYaml('small-binding', 'small', 'Warn, Audit'));
    const warned = await kubectl.run(['create', 'deployment', 'wide', '--image=nginx', '--replicas=3']);
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stdout, 'deployment.apps/wide created\n');
    assert.equal(warned.stderr, "Warning: Validation failed for ValidatingAdmissionPolicy 'small' with binding 'small-binding': replicas 3 > 2\n");
    const [entry] = await server.control.requests.read({ family: 'cluster', method: 'create deployments' });
    const annotations = (entry?.jsonPayload as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
    assert.deepEqual(JSON.parse(annotations['validation.policy.admission.k8s.io/validation_failure'] ?? 'null'), [
      { message: 'replicas 3 > 2', policy: 'small', binding: 'small-binding', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
    assert.equal((await kubectl.run(['delete', 'validatingadmissionpolicybinding', 'small-binding'])).code, 0);
  });

  it('a param-driven policy (ConfigMap params) changes its verdict when the ConfigMap changes', async () => {
    assert.equal((await kubectl.run(['create', 'configmap', 'replica-limits', '--from-literal=max=1'])).code, 0);
    await apply(
      'max-replicas.yaml',
      policyYaml(
        'max-replicas',
        ['  - expression: object.spec.replicas <= int(params.data.max)', "    messageExpression: \"'at most ' + params.data.max + ' replicas'\""],
        ['  paramKind:', '    apiVersion: v1', '    kind: ConfigMap'],
      ),
    );
    await apply(
      'max-replicas-binding.yaml',
      bindingYaml('max-replicas-binding', 'max-replicas', 'Deny', [
        '  paramRef:',
        '    name: replica-limits',
        '    namespace: default',
        '    parameterNotFoundAction: Deny',
      ]),
    );
    const refused = await kubectl.run(['create', 'deployment', 'api', '--image=nginx', '--replicas=2']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /denied request: at most 1 replicas\n$/);
    assert.equal((await kubectl.run(['patch', 'configmap', 'replica-limits', '-p', '{"data":{"max":"3"}}'])).code, 0);
    const admitted = await kubectl.run(['create', 'deployment', 'api', '--image=nginx', '--replicas=2']);
    assert.equal(admitted.stdout, 'deployment.apps/api created\n', admitted.stderr);
    // And back: any later update of the Deployment (a label, here) is held to the tighter limit.
    assert.equal((await kubectl.run(['patch', 'configmap', 'replica-limits', '-p', '{"data":{"max":"1"}}'])).code, 0);
    const edited = await kubectl.run(['label', 'deployment', 'api', 'tier=web']);
    assert.equal(edited.code, 1);
    assert.match(edited.stderr, /denied request: at most 1 replicas\n$/);
  });
  it("`kubectl apply` of a broken policy, binding or webhook configuration prints the apiserver's 422 field errors", async () => {
    const write = (name: string, text: string): string => {
      const path = join(kubectl.dir, name);
      writeFileSync(path, text);
      return path;
    };
    const policy = write('broken-policy.yaml', policyYaml('broken', ['  - expression: params.max > 1']));
    const refusedPolicy = await kubectl.run(['apply', '-f', policy]);
    assert.equal(refusedPolicy.code, 1);
    assert.equal(
      refusedPolicy.stderr,
      [
        'The ValidatingAdmissionPolicy "broken" is invalid: spec.validations[0].expression: Invalid value: "params.max > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to \'params\' (in container \'\')',
        ' | params.max > 1',
        ' | ^',
        '',
      ].join('\n'),
    );
    const binding = write('broken-binding.yaml', bindingYaml('broken-binding', 'broken', 'Deny, Warn'));
    const refusedBinding = await kubectl.run(['apply', '-f', binding]);
    assert.equal(refusedBinding.code, 1);
    assert.equal(
      refusedBinding.stderr,
      'The ValidatingAdmissionPolicyBinding "broken-binding" is invalid: spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)\n',
    );
    const webhook = write(
      'broken-webhook.yaml',
      [
        'apiVersion: admissionregistration.k8s.io/v1',
        'kind: ValidatingWebhookConfiguration',
        'metadata:',
        '  name: broken-webhook',
        'webhooks:',
        '- name: check.example.com',
        '  clientConfig:',
        '    url: http://hooks.example.com/check',
        '  rules:',
        '  - apiGroups: ["apps"]',
        '    apiVersions: ["v1"]',
        '    operations: ["CREATE"]',
        '    resources: ["deployments"]',
        '',
      ].join('\n'),
    );
    const refusedWebhook = await kubectl.run(['apply', '-f', webhook]);
    assert.equal(refusedWebhook.code, 1);
    assert.equal(
      refusedWebhook.stderr,
      [
        'The ValidatingWebhookConfiguration "broken-webhook" is invalid: ',
        '* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
        '* webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
        '* webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
        '',
      ].join('\n'),
    );
    // Nothing was stored.
    const listed = await kubectl.run(['get', 'validatingadmissionpolicies,validatingwebhookconfigurations', '-o', 'name']);
    assert.doesNotMatch(listed.stdout, /broken/);
  });
});
