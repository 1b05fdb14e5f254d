import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import { type ClusterHarness, startHarness } from '../../../../testing/cluster-harness.ts';
import type { BuiltinObject, KindBehaviour } from '../../builtin/behaviour.ts';
import {
  mutatingWebhookConfigurationBehaviour,
  validatingAdmissionPolicyBehaviour,
  validatingAdmissionPolicyBindingBehaviour,
  validatingWebhookConfigurationBehaviour,
} from './behaviours.ts';

// biome-ignore lint/suspicious/noExplicitAny: the fixtures are edited freely, one field per case
type Json = Record<string, any>;

/** asObject hands a fixture to a behaviour. */
const asObject = (object: Json) => object as unknown as BuiltinObject;

const rule = () => ({ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' });
const selectors = () => ({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });

/** Objects as stored after the v1 defaults: each valid, each case below breaks one thing. */
function policy(): Json {
  return {
    metadata: { name: 'p' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { ...selectors(), resourceRules: [rule()] },
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5' }],
    },
  };
}

function binding(): Json {
  return { metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'] } };
}

function webhooks(): Json {
  return {
    metadata: { name: 'w' },
    webhooks: [
      {
        name: 'check.example.com',
        clientConfig: { url: 'https://hooks.example.com/check' },
        rules: [rule()],
        failurePolicy: 'Fail',
        ...selectors(),
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

type Case = readonly [title: string, change: (object: Json) => void, expected: readonly string[]];

function run(behaviour: KindBehaviour, base: () => Json, cases: readonly Case[]): void {
  it('accepts the valid object', () => assert.deepEqual(behaviour.validate!(asObject(base())), []));
  for (const [title, change, expected] of cases) {
    it(title, () => {
      const object = base();
      change(object);
      assert.deepEqual(behaviour.validate!(asObject(object)).map(fieldErrorText), expected);
    });
  }
}

const PARAMS_UNDECLARED = "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^";

describe('ValidatingAdmissionPolicy rules', () => {
  run(validatingAdmissionPolicyBehaviour, policy, [
    [
      'an expression that does not compile',
      (p) => (p.spec.validations[0].expression = 'params.max > 1'),
      [`spec.validations[0].expression: Invalid value: "params.max > 1": ${PARAMS_UNDECLARED}`],
    ],
    [
      'params with a paramKind',
      (p) => {
        p.spec.paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
        p.spec.validations[0].expression = 'params.max > 1';
      },
      [],
    ],
    [
      'a result that is not bool',
      (p) => (p.spec.validations[0].expression = "'yes'"),
      ['spec.validations[0].expression: Invalid value: "\'yes\'": must evaluate to bool but got string'],
    ],
    [
      'a dyn result is not bool',
      (p) => (p.spec.validations[0].expression = 'object.spec.paused'),
      ['spec.validations[0].expression: Invalid value: "object.spec.paused": must evaluate to bool but got dyn'],
    ],
    [
      'request is typed: a misspelt field',
      (p) => (p.spec.validations[0].expression = "request.foo == 'x'"),
      [
        "spec.validations[0].expression: Invalid value: \"request.foo == 'x'\": compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'x'\n | .......^",
      ],
    ],
    [
      'request is typed: request.name is a string',
      (p) => (p.spec.validations[0].expression = 'request.name'),
      ['spec.validations[0].expression: Invalid value: "request.name": must evaluate to bool but got string'],
    ],
    ['an empty expression', (p) => (p.spec.validations[0].expression = '  '), ['spec.validations[0].expression: Required value: expression is not specified']],
    [
      'a message with a line break',
      (p) => (p.spec.validations[0].message = 'a\nb'),
      ['spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks'],
    ],
    [
      'a blank message',
      (p) => (p.spec.validations[0].message = ' '),
      ['spec.validations[0].message: Invalid value: " ": message must be non-empty if specified'],
    ],
    [
      'a messageExpression without authorizer and of type string',
      (p) => (p.spec.validations[0].messageExpression = "authorizer.path('/x').check('get').allowed()"),
      [
        "spec.validations[0].messageExpression: Invalid value: \"authorizer.path('/x').check('get').allowed()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path('/x').check('get').allowed()\n | ^",
      ],
    ],
    [
      'a messageExpression that is not a string',
      (p) => (p.spec.validations[0].messageExpression = '1'),
      ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int'],
    ],
    [
      'an unknown reason',
      (p) => (p.spec.validations[0].reason = 'Unauthorized'),
      ['spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"'],
    ],
    [
      'no validations or audit annotations',
      (p) => (p.spec.validations = []),
      [
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ],
    ],
    ['no matchConstraints', (p) => delete p.spec.matchConstraints, ['spec.matchConstraints: Required value']],
    ['matchConstraints without resource rules', (p) => (p.spec.matchConstraints.resourceRules = []), ['spec.matchConstraints.resourceRules: Required value']],
    [
      'an unknown failurePolicy',
      (p) => (p.spec.failurePolicy = 'Maybe'),
      ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
    ],
    [
      'a bad paramKind',
      (p) => (p.spec.paramKind = { apiVersion: 'a/b/c', kind: 'Config_Map' }),
      [
        'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        "spec.paramKind.kind: Invalid value: \"Config_Map\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      'a paramKind without version',
      (p) => (p.spec.paramKind = { apiVersion: 'example.com/', kind: 'Limits' }),
      ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified'],
    ],
    [
      'variables: a bad name and an empty expression',
      (p) => (p.spec.variables = [{ name: 'in', expression: '' }]),
      [
        'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
        'spec.variables[0].expression: Required value: expression is not specified',
      ],
    ],
    [
      'variables are declared only with variables',
      (p) => (p.spec.validations[0].expression = 'variables.x'),
      [
        "spec.validations[0].expression: Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x\n | ^",
      ],
    ],
    [
      'a variable used by a validation',
      (p) => {
        p.spec.variables = [{ name: 'replicas', expression: 'object.spec.replicas' }];
        p.spec.validations[0].expression = 'variables.replicas <= 5';
      },
      [],
    ],
    [
      'a bool variable is a validation by itself; an unknown one is an undefined field',
      (p) => {
        p.spec.variables = [
          { name: 'small', expression: 'object.spec.replicas <= 5' },
          { name: 'later', expression: 'variables.after' },
        ];
        p.spec.validations = [{ expression: 'variables.small' }, { expression: 'variables.missing' }];
      },
      [
        'spec.variables[1].expression: Invalid value: "variables.after": compilation failed: ERROR: <input>:1:10: undefined field \'after\'\n | variables.after\n | .........^',
        'spec.validations[1].expression: Invalid value: "variables.missing": compilation failed: ERROR: <input>:1:10: undefined field \'missing\'\n | variables.missing\n | .........^',
      ],
    ],
    [
      'matchConditions: a name that is not qualified, a duplicate and a non-bool',
      (p) =>
        (p.spec.matchConditions = [
          { name: 'a b', expression: 'true' },
          { name: 'x', expression: 'true' },
          { name: 'x', expression: "'s'" },
        ]),
      [
        "spec.matchConditions[0].name: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.matchConditions[2].expression: Invalid value: "\'s\'": must evaluate to bool but got string',
        'spec.matchConditions[2].name: Duplicate value: "x"',
      ],
    ],
    [
      'audit annotations: keys under the policy name, unique, string or null',
      (p) =>
        (p.spec.auditAnnotations = [
          { key: 'k', valueExpression: "'v'" },
          { key: 'k', valueExpression: 'null' },
          { key: 'bad key', valueExpression: '1' },
        ]),
      [
        'spec.auditAnnotations[1].key: Duplicate value: "k"',
        "spec.auditAnnotations[2].key: Invalid value: \"p/bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.auditAnnotations[2].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int',
      ],
    ],
    [
      'rules: wildcards alone, known operations and scope, resourceNames',
      (p) =>
        (p.spec.matchConstraints.resourceRules = [
          {
            apiGroups: ['apps', '*'],
            apiVersions: [],
            operations: ['CREATE', '*', 'PATCH'],
            resources: ['*/*', 'pods'],
            scope: 'Global',
            resourceNames: ['a/b', 'x', 'x'],
          },
        ]),
      [
        'spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b": may not contain \'/\'',
        'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
        'spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*", "PATCH"}: if \'*\' is present, must not specify other operations',
        'spec.matchConstraints.resourceRules[0].operations[2]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
        'spec.matchConstraints.resourceRules[0].apiGroups: Invalid value: []string{"apps", "*"}: if \'*\' is present, must not specify other API groups',
        'spec.matchConstraints.resourceRules[0].apiVersions: Required value',
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"*/*", "pods"}: if \'*/*\' is present, must not specify other resources',
        'spec.matchConstraints.resourceRules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
      ],
    ],
    [
      'subresource wildcards',
      (p) => (p.spec.matchConstraints.resourceRules[0].resources = ['pods/*', 'pods/status', '*/scale', 'deployments/scale', '*', 'pods']),
      [
        'spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status',
        'spec.matchConstraints.resourceRules[0].resources[3]: Invalid value: "deployments/scale": if \'*/scale\' is present, must not specify deployments/scale',
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"pods/*", "pods/status", "*/scale", "deployments/scale", "*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
      ],
    ],
    [
      'a selector with a bad operator and values',
      (p) =>
        (p.spec.matchConstraints.namespaceSelector = {
          matchExpressions: [
            { key: 'env', operator: 'Has', values: [] },
            { key: 'team', operator: 'Exists', values: ['a'] },
          ],
        }),
      [
        'spec.matchConstraints.namespaceSelector.matchExpressions[0].operator: Invalid value: "Has": not a valid selector operator',
        "spec.matchConstraints.namespaceSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    ],
  ]);

  it('an update that keeps the matchConditions does not compile them again', () => {
    const old = policy();
    old.spec.matchConditions = [{ name: 'c', expression: 'params.x' }];
    const next = structuredClone(old);
    next.spec.validations[0].message = 'changed';
    assert.deepEqual(validatingAdmissionPolicyBehaviour.validateOnUpdate!(asObject(next), asObject(old)), []);
    next.spec.matchConditions[0].expression = 'params.y';
    assert.equal(validatingAdmissionPolicyBehaviour.validateOnUpdate!(asObject(next), asObject(old)).length, 1);
  });
});

describe('ValidatingAdmissionPolicyBinding rules', () => {
  run(validatingAdmissionPolicyBindingBehaviour, binding, [
    ['no validationActions', (b) => (b.spec.validationActions = []), ['spec.validationActions: Required value: at least one validation action is required']],
    [
      'Deny with Warn, a duplicate and an unknown action',
      (b) => (b.spec.validationActions = ['Deny', 'Warn', 'Deny', 'Log']),
      [
        'spec.validationActions[2]: Duplicate value: "Deny"',
        'spec.validationActions[3]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", "Log"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    ],
    ['no policyName', (b) => delete b.spec.policyName, ['spec.policyName: Required value']],
    [
      'a policyName that is not a DNS subdomain',
      (b) => (b.spec.policyName = 'P'),
      [
        "spec.policyName: Invalid value: \"P\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'paramRef with name and selector, without parameterNotFoundAction',
      (b) => (b.spec.paramRef = { name: 'limits', selector: {} }),
      [
        'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
        'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
        'spec.paramRef.parameterNotFoundAction: Required value',
      ],
    ],
    [
      'paramRef with neither, and an unknown action',
      (b) => (b.spec.paramRef = { parameterNotFoundAction: 'Skip' }),
      [
        'spec.paramRef: Required value: one of name or selector must be specified',
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Skip": supported values: "Deny", "Allow"',
      ],
    ],
    [
      "matchResources without resource rules is fine; its errors under upstream's spelling",
      (b) => (b.spec.matchResources = { ...selectors(), matchPolicy: 'Loose' }),
      ['spec.matchResouces.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"'],
    ],
  ]);
});

describe('webhook configuration rules', () => {
  run(validatingWebhookConfigurationBehaviour, webhooks, [
    [
      'an http url',
      (w) => (w.webhooks[0].clientConfig.url = 'http://hooks.example.com/check'),
      ['webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]'],
    ],
    [
      'a url with user, query and fragment and no host',
      (w) => (w.webhooks[0].clientConfig.url = 'https://me@/x?a=1#top'),
      [
        'webhooks[0].clientConfig.url: Invalid value: "": host must be provided; desired format: https://host[/path]',
        'webhooks[0].clientConfig.url: Invalid value: "me": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "top": fragments are not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "a=1": query parameters are not permitted in the URL',
      ],
    ],
    [
      'a url Go cannot parse',
      (w) => (w.webhooks[0].clientConfig.url = '://x'),
      ['webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "://x": missing protocol scheme; desired format: https://host[/path]'],
    ],
    [
      'both url and service',
      (w) => (w.webhooks[0].clientConfig.service = { namespace: 'ns', name: 'svc', port: 443 }),
      ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
    ],
    [
      'a service without name, a bad port and path',
      (w) => (w.webhooks[0].clientConfig = { service: { namespace: 'ns', port: 0, path: 'check//Me' } }),
      [
        'webhooks[0].clientConfig.service.name: Required value: service name is required',
        'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
        'webhooks[0].clientConfig.service.path: Invalid value: "check//Me": must start with a \'/\'',
        // As upstream, the first character is dropped whether or not it is the slash.
        'webhooks[0].clientConfig.service.path: Invalid value: "check//Me": segment[1] may not be empty',
        "webhooks[0].clientConfig.service.path: Invalid value: \"check//Me\": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'no sideEffects and no admissionReviewVersions',
      (w) => {
        delete w.webhooks[0].sideEffects;
        delete w.webhooks[0].admissionReviewVersions;
      },
      [
        'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
        'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
      ],
    ],
    [
      'sideEffects Some on create',
      (w) => (w.webhooks[0].sideEffects = 'Some'),
      ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    ],
    [
      'a timeout over 30 s',
      (w) => (w.webhooks[0].timeoutSeconds = 31),
      ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
    ],
    [
      'review versions: duplicate, unknown only',
      (w) => (w.webhooks[0].admissionReviewVersions = ['v2', 'v2']),
      [
        'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
        'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
      ],
    ],
    [
      'a name that is not fully qualified, and a duplicate',
      (w) => {
        w.webhooks[0].name = 'check.example';
        w.webhooks.push({ ...structuredClone(w.webhooks[0]) });
      },
      [
        'webhooks[0].name: Invalid value: "check.example": should be a domain with at least three segments separated by dots',
        'webhooks[1].name: Invalid value: "check.example": should be a domain with at least three segments separated by dots',
        'webhooks[1].name: Duplicate value: "check.example"',
      ],
    ],
    ['no name', (w) => delete w.webhooks[0].name, ['webhooks[0].name: Required value']],
    [
      'matchConditions cannot read params',
      (w) => (w.webhooks[0].matchConditions = [{ name: 'p', expression: 'params.x == 1' }]),
      [
        "webhooks[0].matchConditions[0].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
      ],
    ],
    [
      'an unknown failurePolicy and matchPolicy',
      (w) => {
        w.webhooks[0].failurePolicy = 'Never';
        w.webhooks[0].matchPolicy = 'Loose';
      },
      [
        'webhooks[0].failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"',
        'webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
      ],
    ],
  ]);

  it("checks a mutating webhook's reinvocationPolicy", () => {
    const object = webhooks();
    object.webhooks[0].reinvocationPolicy = 'Always';
    assert.deepEqual(mutatingWebhookConfigurationBehaviour.validate!(asObject(object)).map(fieldErrorText), [
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });

  it('an update keeps what the stored configuration already had: side effects, unknown review versions, duplicate names', () => {
    const old = webhooks();
    old.webhooks[0].sideEffects = 'Unknown';
    old.webhooks[0].admissionReviewVersions = ['v0'];
    old.webhooks.push(structuredClone(old.webhooks[0]));
    const next = structuredClone(old);
    next.webhooks[0].timeoutSeconds = 5;
    assert.deepEqual(validatingWebhookConfigurationBehaviour.validateOnUpdate!(asObject(next), asObject(old)), []);
    assert.deepEqual(validatingWebhookConfigurationBehaviour.validate!(asObject(next)).map(fieldErrorText), [
      'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v0"}: must include at least one of v1, v1beta1',
      'webhooks[1].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
      'webhooks[1].admissionReviewVersions: Invalid value: []string{"v0"}: must include at least one of v1, v1beta1',
      'webhooks[1].name: Duplicate value: "check.example.com"',
    ]);
  });
});

describe('the 422 a client sees', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('answers a broken policy with the apiserver Status (defaults applied first, errors in upstream order)', async () => {
    const refused = await h.call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: 'broken' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        validations: [{ expression: 'object.x ==' }],
      },
    });
    assert.equal(refused.status, 422);
    const detail = 'compilation failed: ERROR: <input>:1:10: Syntax error: found = but expecting end of input\n | object.x ==\n | .........^';
    assert.deepEqual(refused.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `ValidatingAdmissionPolicy.admissionregistration.k8s.io "broken" is invalid: spec.validations[0].expression: Invalid value: "object.x ==": ${detail}`,
      reason: 'Invalid',
      details: {
        name: 'broken',
        group: 'admissionregistration.k8s.io',
        kind: 'ValidatingAdmissionPolicy',
        causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "object.x ==": ${detail}`, field: 'spec.validations[0].expression' }],
      },
      code: 422,
    });
  });

  it('answers a binding without actions and a webhook without sideEffects', async () => {
    const binding = await h.call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      metadata: { name: 'b' },
      spec: { policyName: 'p' },
    });
    assert.equal(
      binding.body.message,
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: spec.validationActions: Required value: at least one validation action is required',
    );
    const config = webhooks();
    delete config.webhooks[0].sideEffects;
    const webhook = await h.call('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', config);
    assert.equal(
      webhook.body.message,
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
    );
  });
});
