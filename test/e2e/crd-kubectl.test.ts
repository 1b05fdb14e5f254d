import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { storageVersionHash } from '../../src/services/cluster/crd/version-facts.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'crd-kubectl-admin';
const FIXTURES = new URL('../fixtures/crds/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

/** rows splits `kubectl get` output into cells (columns are separated by two or more spaces). */
const rows = (text: string): string[][] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

const widget = (name: string, spec: string): string =>
  `apiVersion: fixtures.fogbank.dev/v1\nkind: Widget\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n${spec}`;

describe('CustomResourceDefinitions with the real kubectl: real-world CRDs applied, instances served with their columns, schemas, rules, scale and SSA', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const file = (name: string, text: string): string => {
    const path = join(kubectl.dir, name);
    writeFileSync(path, text);
    return path;
  };
  const ok = async (args: string[], input?: string): Promise<string> => {
    const result = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(result.code, 0, `kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it("applies the sample-controller's Foo, cert-manager's Certificate and the Widget CRDs, Established at once", async () => {
    assert.equal(
      await ok(['apply', '-f', file('foo.yaml', fixture('sample-controller-foo.yaml'))]),
      'customresourcedefinition.apiextensions.k8s.io/foos.samplecontroller.k8s.io created\n',
    );
    assert.equal(
      await ok(['apply', '-f', file('cert.yaml', fixture('cert-manager-certificate.yaml'))]),
      'customresourcedefinition.apiextensions.k8s.io/certificates.cert-manager.io created\n',
    );
    assert.equal(
      await ok(['apply', '-f', file('widget-crd.yaml', fixture('widget.yaml'))]),
      'customresourcedefinition.apiextensions.k8s.io/widgets.fixtures.fogbank.dev created\n',
    );
    const waited = await ok([
      'wait',
      '--for=condition=Established',
      '--timeout=10s',
      'crd/foos.samplecontroller.k8s.io',
      'crd/certificates.cert-manager.io',
      'crd/widgets.fixtures.fogbank.dev',
    ]);
    assert.equal(
      waited,
      'customresourcedefinition.apiextensions.k8s.io/foos.samplecontroller.k8s.io condition met\n' +
        'customresourcedefinition.apiextensions.k8s.io/certificates.cert-manager.io condition met\n' +
        'customresourcedefinition.apiextensions.k8s.io/widgets.fixtures.fogbank.dev condition met\n',
    );
    const foo = JSON.parse(await ok(['get', 'crd', 'foos.samplecontroller.k8s.io', '-o', 'json']));
    assert.deepEqual(foo.status.acceptedNames, { kind: 'Foo', listKind: 'FooList', plural: 'foos', singular: 'foo' });
    assert.deepEqual(
      foo.status.conditions.map((condition: { type: string; status: string; reason: string }) => `${condition.type}=${condition.status}/${condition.reason}`),
      ['NamesAccepted=True/NoConflicts', 'Established=True/InitialNamesAccepted', 'KubernetesAPIApprovalPolicyConformant=False/UnapprovedAnnotation'],
    );
    assert.deepEqual(foo.status.storedVersions, ['v1alpha1']);
  });

  it('refuses an invalid CRD with the apiserver texts, and installs nothing', async () => {
    const bad = fixture('widget.yaml')
      .replace('name: widgets.fixtures.fogbank.dev', 'name: gadgets.fixtures.fogbank.dev')
      .replace('storage: true', 'storage: false');
    const refused = await kubectl.run(['apply', '-f', file('bad-crd.yaml', bad)]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^The CustomResourceDefinition "gadgets\.fixtures\.fogbank\.dev" is invalid: \n\* metadata\.name: Invalid value: "gadgets\.fixtures\.fogbank\.dev": must be spec\.names\.plural\+"\."\+spec\.group\n\* spec\.versions: Invalid value: \[\]apiextensions\.CustomResourceDefinitionVersion\{apiextensions\.CustomResourceDefinitionVersion\{Name:"v1", Served:true, Storage:false, .*\}: must have exactly one version marked as storage version\n\* status\.storedVersions: Invalid value: \[\]string\(nil\): must have at least one stored version\n$/,
    );
    assert.equal(
      (await kubectl.run(['get', 'crd', 'gadgets.fixtures.fogbank.dev'])).stderr,
      'Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "gadgets.fixtures.fogbank.dev" not found\n',
    );
  });

  it("creates the sample Foo and a Certificate and shows cert-manager's printer columns, -o wide adding the priority ones", async () => {
    assert.equal(
      await ok(['apply', '-n', 'default', '-f', file('example-foo.yaml', fixture('sample-controller-example-foo.yaml'))]),
      'foo.samplecontroller.k8s.io/example-foo created\n',
    );
    const foos = rows(await ok(['get', 'foos', '-n', 'default']));
    assert.deepEqual(foos[0], ['NAME', 'AGE']);
    assert.equal(foos[1]?.[0], 'example-foo');
    assert.match(foos[1]?.[1] ?? '', /^\d+s$/);

    const certificate = [
      'apiVersion: cert-manager.io/v1',
      'kind: Certificate',
      'metadata: {name: example-com, namespace: default}',
      'spec:',
      '  secretName: example-com-tls',
      '  dnsNames: [example.com, www.example.com]',
      '  issuerRef: {name: letsencrypt, kind: ClusterIssuer}',
      '',
    ].join('\n');
    assert.equal(await ok(['apply', '-f', file('certificate.yaml', certificate)]), 'certificate.cert-manager.io/example-com created\n');
    // A controller would report readiness through status; here the test plays cert-manager.
    const status = {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Ready',
            message: 'Certificate is up to date and has not expired',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    };
    await ok(['patch', 'certificate', 'example-com', '-n', 'default', '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
    const certs = rows(await ok(['get', 'cert', '-n', 'default']));
    assert.deepEqual(certs[0], ['NAME', 'READY', 'SECRET', 'AGE']);
    assert.deepEqual(certs[1]?.slice(0, 3), ['example-com', 'True', 'example-com-tls']);
    const wide = rows(await ok(['get', 'certificates', '-n', 'default', '-o', 'wide']));
    assert.deepEqual(wide[0], ['NAME', 'READY', 'SECRET', 'ISSUER', 'STATUS', 'AGE']);
    assert.deepEqual(wide[1]?.slice(0, 5), ['example-com', 'True', 'example-com-tls', 'letsencrypt', 'Certificate is up to date and has not expired']);
    // The cert-manager category names only Certificates here (no Issuers were installed).
    const byCategory = rows(await ok(['get', 'cert-manager', '-n', 'default']));
    assert.deepEqual(byCategory[1]?.slice(0, 3), ['example-com', 'True', 'example-com-tls']);
  });

  it("explains the Certificate from cert-manager's own schema", async () => {
    const explained = await ok(['explain', 'certificate.spec.secretName']);
    assert.match(explained, /^GROUP:\s+cert-manager\.io\nKIND:\s+Certificate\nVERSION:\s+v1\n\nFIELD: secretName <string>\n/);
    assert.match(explained, /Name of the Secret resource that will be automatically created and\s+managed by this Certificate resource\./);
    const issuerRef = await ok(['explain', 'certificates.spec.issuerRef']);
    assert.match(issuerRef, /FIELD: issuerRef <Object>/);
    assert.match(issuerRef, /name\t<string> -required-/);
  });

  it('lists Widgets by short name and in `get all`, with typed columns, and scales them', async () => {
    assert.equal(await ok(['apply', '-f', file('w1.yaml', widget('w1', '  replicas: 2\n'))]), 'widget.fixtures.fogbank.dev/w1 created\n');
    // No status yet: the Ready cell is null, which kubectl prints blank.
    assert.match(await ok(['get', 'wdg', '-n', 'default']), /^NAME {3}REPLICAS {3}READY {3}AGE\nw1 {5}2 {18}\d+s\n$/);
    const all = await ok(['get', 'all', '-n', 'default']);
    assert.match(all, /^NAME\s+REPLICAS\s+READY\s+AGE\nwidget\.fixtures\.fogbank\.dev\/w1\s+2\s+\d+s\n/m);
    assert.doesNotMatch(all, /certificate/, 'Certificates are not in the "all" category');
    const defaulted = JSON.parse(await ok(['get', 'widget', 'w1', '-n', 'default', '-o', 'json']));
    assert.equal(defaulted.spec.maxReplicas, 10, 'the schema default applied');
    assert.equal(defaulted.metadata.generation, 1);

    assert.equal(await ok(['scale', 'widget', 'w1', '-n', 'default', '--replicas=5']), 'widget.fixtures.fogbank.dev/w1 scaled\n');
    const scale = JSON.parse(await ok(['get', 'widget', 'w1', '-n', 'default', '--subresource=scale', '-o', 'json']));
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.spec, { replicas: 5 });
    const scaled = JSON.parse(await ok(['get', 'widget', 'w1', '-n', 'default', '-o', 'json']));
    assert.equal(scaled.spec.replicas, 5);
    assert.equal(scaled.metadata.generation, 2);
    const conditional = await kubectl.run(['scale', 'widget', 'w1', '-n', 'default', '--current-replicas=4', '--replicas=6']);
    assert.equal(conditional.code, 1);
    assert.equal(conditional.stderr, 'error: Expected replicas to be 4, was 5\n');
  });

  it("refuses instances breaking the CEL rules with the rule's message or messageExpression, and one breaking the schema with kube-openapi's text", async () => {
    const tooMany = await kubectl.run(['apply', '-f', file('too-many.yaml', widget('too-many', '  replicas: 12\n'))]);
    assert.equal(tooMany.code, 1);
    assert.equal(tooMany.stderr, 'The Widget "too-many" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas\n');
    const badPort = await kubectl.run([
      'apply',
      '-f',
      file('bad-port.yaml', widget('bad-port', '  replicas: 1\n  ports:\n  - {name: http, port: 80}\n  - {name: admin, port: 70000}\n')),
    ]);
    assert.equal(badPort.code, 1);
    assert.equal(badPort.stderr, 'The Widget "bad-port" is invalid: spec.ports[1].port: Invalid value: "object": port admin must be between 1 and 65535\n');
    const negative = await kubectl.run(['apply', '-f', file('negative.yaml', widget('negative', '  replicas: -1\n  maxReplicas: 3\n'))]);
    assert.equal(negative.code, 1);
    // The schema's minimum and the scale subresource's ValidateScaleSpec both refuse it.
    assert.equal(
      negative.stderr,
      'The Widget "negative" is invalid: \n' +
        '* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0\n' +
        '* .spec.replicas: Invalid value: -1: should be a non-negative integer\n',
    );
    const updated = await kubectl.run(['patch', 'widget', 'w1', '-n', 'default', '--type=merge', '-p', '{"spec":{"maxReplicas":4}}']);
    assert.equal(updated.code, 1);
    assert.equal(updated.stderr, 'The Widget "w1" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas\n');
    const tooManyFoo = await kubectl.run([
      'apply',
      '-f',
      file(
        'big-foo.yaml',
        'apiVersion: samplecontroller.k8s.io/v1alpha1\nkind: Foo\nmetadata: {name: big, namespace: default}\nspec: {deploymentName: big, replicas: 20}\n',
      ),
    ]);
    assert.equal(tooManyFoo.stderr, 'The Foo "big" is invalid: spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10\n');
    assert.equal(
      (await kubectl.run(['get', 'widget', 'too-many', '-n', 'default'])).stderr,
      'Error from server (NotFound): widgets.fixtures.fogbank.dev "too-many" not found\n',
    );
  });

  it('refuses strategic merge patch, and merges a list-map by its key under server-side apply with two field managers', async () => {
    const strategic = await kubectl.run(['patch', 'widget', 'w1', '-n', 'default', '--type=strategic', '-p', '{"spec":{"replicas":1}}']);
    assert.equal(strategic.code, 1);
    assert.match(
      strategic.stderr,
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );

    const mine = widget('ports', '  replicas: 1\n  ports:\n  - {name: http, port: 80}\n');
    assert.equal(
      await ok(['apply', '--server-side', '--field-manager=web', '-f', file('ports-web.yaml', mine)]),
      'widget.fixtures.fogbank.dev/ports serverside-applied\n',
    );
    const theirs = widget('ports', '  ports:\n  - {name: metrics, port: 9090}\n');
    assert.equal(
      await ok(['apply', '--server-side', '--field-manager=monitoring', '-f', file('ports-monitoring.yaml', theirs)]),
      'widget.fixtures.fogbank.dev/ports serverside-applied\n',
    );
    const merged = JSON.parse(await ok(['get', 'widget', 'ports', '-n', 'default', '-o', 'json', '--show-managed-fields']));
    assert.deepEqual(merged.spec.ports, [
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ]);
    const owners = Object.fromEntries(
      merged.metadata.managedFields.map((entry: { manager: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }) => [
        entry.manager,
        entry.fieldsV1['f:spec'],
      ]),
    );
    assert.deepEqual(Object.keys(owners['web']['f:ports']), ['k:{"name":"http"}']);
    assert.deepEqual(Object.keys(owners['monitoring']['f:ports']), ['k:{"name":"metrics"}']);

    const moved = widget('ports', '  ports:\n  - {name: metrics, port: 9100}\n');
    const conflict = await kubectl.run(['apply', '--server-side', '--field-manager=web', '-f', file('ports-conflict.yaml', moved)]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "monitoring": \.spec\.ports\[name="metrics"\]\.port\n/);
    // Dropping its entry from its own apply gives web's item up; monitoring's stays.
    assert.equal(
      await ok(['apply', '--server-side', '--field-manager=web', '-f', file('ports-web-2.yaml', widget('ports', '  replicas: 1\n'))]),
      'widget.fixtures.fogbank.dev/ports serverside-applied\n',
    );
    const after = JSON.parse(await ok(['get', 'widget', 'ports', '-n', 'default', '-o', 'json']));
    assert.deepEqual(after.spec.ports, [{ name: 'metrics', port: 9090 }]);
  });

  it('re-applies an unchanged CRD as unchanged, and serves a second, deprecated version with its warning once added', async () => {
    assert.equal(
      await ok(['apply', '-f', file('cert.yaml', fixture('cert-manager-certificate.yaml'))]),
      'customresourcedefinition.apiextensions.k8s.io/certificates.cert-manager.io unchanged\n',
    );
    const twoVersions = fixture('widget.yaml').replace(
      '  versions:\n',
      [
        '  versions:',
        '    - name: v1beta1',
        '      served: true',
        '      storage: false',
        '      deprecated: true',
        '      deprecationWarning: fixtures.fogbank.dev/v1beta1 Widget is deprecated; use fixtures.fogbank.dev/v1 Widget',
        '      schema:',
        '        openAPIV3Schema:',
        '          type: object',
        '          x-kubernetes-preserve-unknown-fields: true',
        '',
      ].join('\n'),
    );
    assert.equal(
      await ok(['apply', '-f', file('widget-two-versions.yaml', twoVersions)]),
      'customresourcedefinition.apiextensions.k8s.io/widgets.fixtures.fogbank.dev configured\n',
    );
    const crd = JSON.parse(await ok(['get', 'crd', 'widgets.fixtures.fogbank.dev', '-o', 'json']));
    assert.equal(crd.metadata.generation, 2);
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    const old = await kubectl.run(['get', 'widgets.v1beta1.fixtures.fogbank.dev', 'w1', '-n', 'default', '-o', 'jsonpath={.apiVersion} {.spec.replicas}']);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(old.stdout, 'fixtures.fogbank.dev/v1beta1 5');
    assert.equal(old.stderr, 'Warning: fixtures.fogbank.dev/v1beta1 Widget is deprecated; use fixtures.fogbank.dev/v1 Widget\n');
  });

  it("ages date columns by the server's clock, frozen and moved by the test", async () => {
    const clock = (change: Record<string, unknown>) =>
      fetch(`${server.url}/_fogbank/clock`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(change),
      });
    assert.equal((await clock({ freeze: true })).status, 200);
    assert.equal((await clock({ set: '2030-06-01T00:00:00Z' })).status, 200);
    try {
      await ok(['apply', '-f', file('aged.yaml', widget('aged', '  replicas: 1\n'))]);
      await ok([
        'apply',
        '-f',
        file('aged-foo.yaml', 'apiVersion: samplecontroller.k8s.io/v1alpha1\nkind: Foo\nmetadata: {name: aged, namespace: default}\nspec: {replicas: 1}\n'),
      ]);
      assert.equal((await clock({ advance: '2m30s' })).status, 200);
      assert.match(await ok(['get', 'widget', 'aged', '-n', 'default']), /\naged {3}1 {18}2m30s\n$/);
      assert.match(await ok(['get', 'foo', 'aged', '-n', 'default']), /\naged {3}2m30s\n$/);
    } finally {
      await clock({ freeze: false });
    }
  });

  it('writes through a version that is not stored, ratchets unchanged invalid values, validates /status and the scale paths, as kubectl sees them', async () => {
    const gadgetCrd = (colors: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.fixtures.fogbank.dev
spec:
  group: fixtures.fogbank.dev
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
${['v1', 'v1beta1', 'v1alpha1']
  .map(
    (name) => `    - name: ${name}
      served: true
      storage: ${name === 'v1'}
      deprecated: ${name === 'v1alpha1'}
      subresources:
        status: {}
        scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: {type: integer}
                color: {type: string${colors}}
${['v1', 'v1beta1', 'v1alpha1'].map((field) => `                ${field}Field: {type: string${field === name ? `, default: set-by-${name}` : ''}}\n`).join('')}            status:
              type: object
              properties:
                num: {type: integer, maximum: 10}
`,
  )
  .join('')}`;
    assert.equal(
      await ok(['apply', '-f', file('gadget-crd.yaml', gadgetCrd(''))]),
      'customresourcedefinition.apiextensions.k8s.io/gadgets.fixtures.fogbank.dev created\n',
    );
    await ok(['wait', '--for=condition=Established', '--timeout=10s', 'crd/gadgets.fixtures.fogbank.dev']);
    const gadget = 'apiVersion: fixtures.fogbank.dev/v1beta1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nspec: {replicas: 1, color: mauve}\n';
    assert.equal(await ok(['apply', '-f', file('g1.yaml', gadget)]), 'gadget.fixtures.fogbank.dev/g1 created\n');
    // Written through v1beta1: its default; read through storage (v1): the storage version's default too.
    const read = JSON.parse(await ok(['get', 'gadgets.v1beta1.fixtures.fogbank.dev', 'g1', '-n', 'default', '-o', 'json']));
    assert.deepEqual(read.spec, { replicas: 1, color: 'mauve', v1beta1Field: 'set-by-v1beta1', v1Field: 'set-by-v1' });

    // A stricter schema: the stored color stays acceptable while it is left as it is.
    assert.equal(
      await ok(['apply', '-f', file('gadget-crd-enum.yaml', gadgetCrd(', enum: [red, blue]'))]),
      'customresourcedefinition.apiextensions.k8s.io/gadgets.fixtures.fogbank.dev configured\n',
    );
    assert.equal(await ok(['label', 'gadget', 'g1', '-n', 'default', 'touched=yes']), 'gadget.fixtures.fogbank.dev/g1 labeled\n');
    assert.equal(await ok(['apply', '-f', file('g1-more.yaml', gadget.replace('replicas: 1', 'replicas: 2'))]), 'gadget.fixtures.fogbank.dev/g1 configured\n');
    const recolor = await kubectl.run(['patch', 'gadget', 'g1', '-n', 'default', '--type=merge', '-p', '{"spec":{"color":"teal"}}']);
    assert.equal(recolor.code, 1);
    assert.equal(recolor.stderr, 'The Gadget "g1" is invalid: spec.color: Unsupported value: "teal": supported values: "red", "blue"\n');

    const status = await kubectl.run(['patch', 'gadget', 'g1', '-n', 'default', '--subresource=status', '--type=merge', '-p', '{"status":{"num":15}}']);
    assert.equal(status.code, 1);
    assert.equal(status.stderr, 'The Gadget "g1" is invalid: status.num: Invalid value: 15: num in body should be less than or equal to 10\n');
    const huge = await kubectl.run(['patch', 'gadget', 'g1', '-n', 'default', '--type=merge', '-p', '{"spec":{"replicas":2147483648}}']);
    assert.equal(huge.code, 1);
    assert.equal(huge.stderr, 'The Gadget "g1" is invalid: .spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647\n');

    // A deprecated version without its own warning names the version to use instead.
    const alpha = await kubectl.run(['get', 'gadgets.v1alpha1.fixtures.fogbank.dev', '-n', 'default', '-o', 'name']);
    assert.equal(alpha.stdout, 'gadget.fixtures.fogbank.dev/g1\n');
    assert.equal(alpha.stderr, 'Warning: fixtures.fogbank.dev/v1alpha1 Gadget is deprecated; use fixtures.fogbank.dev/v1 Gadget\n');
    const discovery = JSON.parse(await ok(['get', '--raw', '/apis/fixtures.fogbank.dev/v1beta1']));
    const gadgets = discovery.resources.filter((entry: { name: string }) => entry.name.startsWith('gadgets'));
    assert.deepEqual(
      gadgets.map((entry: { name: string; storageVersionHash?: string }) => [entry.name, entry.storageVersionHash]),
      [
        ['gadgets', storageVersionHash('fixtures.fogbank.dev', 'v1', 'Gadget')],
        ['gadgets/status', undefined],
        ['gadgets/scale', undefined],
      ],
    );
    assert.equal(
      await ok(['delete', 'crd', 'gadgets.fixtures.fogbank.dev']),
      'customresourcedefinition.apiextensions.k8s.io "gadgets.fixtures.fogbank.dev" deleted\n',
    );
  });

  it('deleting a CRD removes its instances and its resource', async () => {
    assert.equal(
      await ok(['delete', 'crd', 'widgets.fixtures.fogbank.dev']),
      'customresourcedefinition.apiextensions.k8s.io "widgets.fixtures.fogbank.dev" deleted\n',
    );
    // kubectl still has widgets in its discovery cache, so it asks, and the path is gone.
    const gone = await kubectl.run(['get', 'widgets', '-n', 'default']);
    assert.equal(gone.code, 1);
    assert.equal(
      gone.stderr,
      'Error from server (NotFound): Unable to list "fixtures.fogbank.dev/v1, Resource=widgets": the server could not find the requested resource\n',
    );
    const fresh = await kubectl.run(['get', 'widgets', '-n', 'default', '--cache-dir', join(kubectl.dir, 'fresh-cache')]);
    assert.equal(fresh.stderr, 'error: the server doesn\'t have a resource type "widgets"\n');
    assert.equal(
      await ok(['apply', '-f', file('widget-crd-again.yaml', fixture('widget.yaml'))]),
      'customresourcedefinition.apiextensions.k8s.io/widgets.fixtures.fogbank.dev created\n',
    );
    await ok(['wait', '--for=condition=Established', '--timeout=10s', 'crd/widgets.fixtures.fogbank.dev']);
    const empty = await kubectl.run(['get', 'widgets', '-n', 'default']);
    assert.equal(empty.stderr, 'No resources found in default namespace.\n');
  });
});
