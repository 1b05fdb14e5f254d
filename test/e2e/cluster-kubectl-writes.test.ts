import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-writes-admin';
const G = 'clusterrole.rbac.authorization.k8s.io';

const roleYaml = (name: string, verbs: string[], extra: string[] = []) =>
  [
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRole',
    'metadata:',
    `  name: ${name}`,
    ...extra,
    'rules:',
    '- apiGroups: [""]',
    '  resources: ["configmaps"]',
    `  verbs: [${verbs.map((v) => JSON.stringify(v)).join(', ')}]`,
    '',
  ].join('\n');

describe('cluster write paths with the real kubectl: apply, server-side apply, diff, patch, edit, aggregation', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const file = (name: string, text: string): string => {
    const path = join(kubectl.dir, name);
    writeFileSync(path, text);
    return path;
  };
  const json = async (name: string) => JSON.parse((await kubectl.run(['get', 'clusterrole', name, '-o', 'json', '--show-managed-fields'])).stdout);
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('client-side apply creates, then three-way merges a change; diff shows the next one', async () => {
    const path = file('applied.yaml', roleYaml('applied', ['get']));
    assert.equal((await kubectl.run(['apply', '-f', path])).stdout, `${G}/applied created\n`);
    const first = await json('applied');
    assert.match(first.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], /"verbs":\["get"\]/);
    writeFileSync(path, roleYaml('applied', ['get', 'list']));
    assert.equal((await kubectl.run(['apply', '-f', path])).stdout, `${G}/applied configured\n`);
    assert.deepEqual((await json('applied')).rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    assert.equal((await kubectl.run(['apply', '-f', path])).stdout, `${G}/applied unchanged\n`);
    writeFileSync(path, roleYaml('applied', ['get', 'list', 'watch']));
    const diff = await kubectl.run(['diff', '-f', path]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^ {3}- list\n\+ {2}- watch$/m);
    assert.deepEqual((await json('applied')).rules[0].verbs, ['get', 'list'], 'diff stores nothing');
  });

  it("moves from client-side to server-side apply without conflicts, and back (kubectl's migration against the server's last-applied handling)", async () => {
    const path = file('moving.yaml', roleYaml('moving', ['get'], ['  labels:', '    team: a']));
    assert.equal((await kubectl.run(['apply', '-f', path])).stdout, `${G}/moving created\n`);
    writeFileSync(path, roleYaml('moving', ['get', 'list'], ['  labels:', '    team: b']));
    const moved = await kubectl.run(['apply', '--server-side', '-f', path]);
    assert.equal(moved.stdout, `${G}/moving serverside-applied\n`, moved.stderr);
    assert.equal(moved.stderr, '');
    const serverSide = await json('moving');
    assert.deepEqual(serverSide.metadata.labels, { team: 'b' });
    assert.deepEqual(serverSide.rules[0].verbs, ['get', 'list']);
    // kubectl moved client-side apply's fields into its Apply entry and keeps the annotation under its own manager.
    assert.deepEqual(
      serverSide.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`),
      ['kubectl/Apply', 'kubectl-last-applied/Apply'],
    );
    assert.match(serverSide.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], /"labels":\{"team":"b"\}.*"verbs":\["get","list"\]/);
    // The annotation kept up to date lets client-side apply take over again.
    writeFileSync(path, roleYaml('moving', ['get'], ['  labels:', '    team: c']));
    assert.equal((await kubectl.run(['apply', '-f', path])).stdout, `${G}/moving configured\n`);
    const back = await json('moving');
    assert.deepEqual(back.metadata.labels, { team: 'c' });
    assert.deepEqual(back.rules[0].verbs, ['get']);
  });

  it('server-side apply: creates, conflicts with a second manager with the real text, wins with --force-conflicts, dry-runs', async () => {
    const path = file('ssa.yaml', roleYaml('ssa', ['get'], ['  labels:', '    team: a']));
    assert.equal((await kubectl.run(['apply', '--server-side', '-f', path])).stdout, `${G}/ssa serverside-applied\n`);
    const created = await json('ssa');
    assert.deepEqual(
      created.metadata.managedFields.map((entry: { manager: string; operation: string; fieldsV1: unknown }) => [
        entry.manager,
        entry.operation,
        entry.fieldsV1,
      ]),
      [['kubectl', 'Apply', { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:rules': {} }]],
    );
    const other = file('ssa-other.yaml', roleYaml('ssa', ['get', 'delete']));
    const conflict = await kubectl.run(['apply', '--server-side', '--field-manager=other', '-f', other]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.rules\n/);
    const dry = await kubectl.run(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '--dry-run=server', '-f', other]);
    assert.equal(dry.stdout, `${G}/ssa serverside-applied (server dry run)\n`);
    assert.deepEqual((await json('ssa')).rules[0].verbs, ['get']);
    const forced = await kubectl.run(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other]);
    assert.equal(forced.stdout, `${G}/ssa serverside-applied\n`);
    const after = await json('ssa');
    assert.deepEqual(after.rules[0].verbs, ['get', 'delete']);
    assert.deepEqual(
      after.metadata.managedFields.map((entry: { manager: string; fieldsV1: unknown }) => [entry.manager, entry.fieldsV1]),
      [
        ['kubectl', { 'f:metadata': { 'f:labels': { 'f:team': {} } } }],
        ['other', { 'f:rules': {} }],
      ],
    );
  });

  it('patches with --type json, merge and strategic', async () => {
    await kubectl.run(['apply', '-f', file('patched.yaml', roleYaml('patched', ['get']))]);
    const jsonPatch = await kubectl.run(['patch', 'clusterrole', 'patched', '--type', 'json', '-p', '[{"op":"add","path":"/rules/0/verbs/-","value":"list"}]']);
    assert.equal(jsonPatch.stdout, `${G}/patched patched\n`);
    const merge = await kubectl.run(['patch', 'clusterrole', 'patched', '--type', 'merge', '-p', '{"metadata":{"labels":{"m":"1"}}}']);
    assert.equal(merge.stdout, `${G}/patched patched\n`);
    const strategic = await kubectl.run(['patch', 'clusterrole', 'patched', '--type', 'strategic', '-p', '{"metadata":{"finalizers":["example.com/keep"]}}']);
    assert.equal(strategic.stdout, `${G}/patched patched\n`);
    const object = await json('patched');
    assert.deepEqual(object.rules[0].verbs, ['get', 'list']);
    assert.equal(object.metadata.labels.m, '1');
    assert.deepEqual(object.metadata.finalizers, ['example.com/keep']);
    const missing = await kubectl.run(['patch', 'clusterrole', 'patched', '--type', 'json', '-p', '[{"op":"replace","path":"/nope/x","value":1}]']);
    // The apiserver answers any JSON patch that does not apply with a generic 422 (no causes).
    assert.equal(missing.stderr, 'The request is invalid: the server rejected our request due to an error in our request\n');
    await kubectl.run(['patch', 'clusterrole', 'patched', '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  });

  it('edits through a scripted EDITOR', async () => {
    await kubectl.run(['apply', '-f', file('edited.yaml', roleYaml('edited', ['get']))]);
    const editor = file('editor.sh', '#!/bin/sh\nsed -i "s/^  - get$/  - get\\n  - watch/" "$1"\n');
    chmodSync(editor, 0o755);
    const edited = await kubectl.run(['edit', 'clusterrole', 'edited'], { env: { EDITOR: editor } });
    assert.equal(edited.stdout, `${G}/edited edited\n`, edited.stderr);
    assert.deepEqual((await json('edited')).rules[0].verbs, ['get', 'watch']);
  });

  it('auth reconcile creates then leaves alone; replace overwrites', async () => {
    const path = file(
      'reconcile.yaml',
      [
        roleYaml('reconciled', ['get']),
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRoleBinding',
        'metadata:',
        '  name: reconciled',
        'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reconciled}',
        'subjects: [{kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}]',
        '',
      ].join('\n'),
    );
    const first = await kubectl.run(['auth', 'reconcile', '-f', path]);
    assert.equal(first.stdout, `${G}/reconciled reconciled\nclusterrolebinding.rbac.authorization.k8s.io/reconciled reconciled\n`);
    assert.match(first.stderr, /reconciliation required create\n\tmissing rules added:/);
    const second = await kubectl.run(['auth', 'reconcile', '-f', path]);
    assert.equal(second.stderr, '', 'nothing left to reconcile');
    assert.equal(
      (await kubectl.run(['replace', '-f', path])).stdout,
      `${G}/reconciled replaced\nclusterrolebinding.rbac.authorization.k8s.io/reconciled replaced\n`,
    );
  });

  it('an aggregated role picks up a labelled role and drops it when the label goes', async () => {
    const aggregate = file(
      'agg.yaml',
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: monitoring',
        'aggregationRule:',
        '  clusterRoleSelectors:',
        '  - matchLabels:',
        '      example.com/aggregate-to-monitoring: "true"',
        'rules: []',
        '',
      ].join('\n'),
    );
    await kubectl.run(['apply', '-f', aggregate]);
    await kubectl.run([
      'apply',
      '-f',
      file('part.yaml', roleYaml('monitoring-part', ['get'], ['  labels:', '    example.com/aggregate-to-monitoring: "true"'])),
    ]);
    const until = async (want: unknown) => {
      for (let i = 0; i < 100; i++) {
        if (JSON.stringify((await json('monitoring')).rules ?? []) === JSON.stringify(want)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.fail(`monitoring never had ${JSON.stringify(want)}`);
    };
    await until([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    assert.equal(
      (await kubectl.run(['label', 'clusterrole', 'monitoring-part', 'example.com/aggregate-to-monitoring-'])).stdout,
      `${G}/monitoring-part unlabeled\n`,
    );
    await until([]);
    const listed = await kubectl.run(['get', 'clusterroles', '-o', 'name']);
    for (const name of ['admin', 'cluster-admin', 'edit', 'view', 'system:discovery']) assert.match(listed.stdout, new RegExp(`^${G}/${name}$`, 'm'));
  });
});
