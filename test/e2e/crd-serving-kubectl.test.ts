import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'crd-serving-admin';

const CRD_YAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a thing with a color.
        properties:
          spec:
            type: object
            description: The widget's desired state.
            properties:
              color:
                type: string
                description: The color of the widget.
              replicas:
                type: integer
          status:
            type: object
            properties:
              replicas:
                type: integer
`;

const WIDGET_YAML = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
  namespace: default
spec:
  color: red
  replicas: 1
`;

describe('custom resources with the real kubectl (smoke): apply a CRD, get with printer columns and short names, explain, scale, delete', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const file = (name: string, text: string): string => {
    const path = join(kubectl.dir, name);
    writeFileSync(path, text);
    return path;
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('applies the CRD, then an instance, and lists it with its printer columns, by short name and in `get all`', async () => {
    const crd = await kubectl.run(['apply', '-f', file('crd.yaml', CRD_YAML)]);
    assert.equal(crd.stdout, 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n', crd.stderr);
    const widget = await kubectl.run(['apply', '-f', file('widget.yaml', WIDGET_YAML)]);
    assert.equal(widget.stdout, 'widget.example.com/w1 created\n', widget.stderr);
    const listed = await kubectl.run(['get', 'widgets']);
    assert.match(listed.stdout, /^NAME\s+COLOR\s+REPLICAS\n/);
    assert.match(listed.stdout, /\nw1\s+red\s+1\n$/);
    const short = await kubectl.run(['get', 'wd', 'w1', '-o', 'jsonpath={.spec.color}']);
    assert.equal(short.stdout, 'red', short.stderr);
    const all = await kubectl.run(['get', 'all']);
    assert.match(all.stdout, /widget\.example\.com\/w1\s+red\s+1/, all.stdout + all.stderr);
    const crds = await kubectl.run(['get', 'crd']);
    assert.match(crds.stdout, /^NAME\s+CREATED AT\nwidgets\.example\.com\s+\d{4}-\d\d-\d\dT/);
  });

  it('applies again: a changed instance is configured (merge patch), the CRD server-side applied', async () => {
    const changed = await kubectl.run(['apply', '-f', file('widget.yaml', WIDGET_YAML.replace('color: red', 'color: blue'))]);
    assert.equal(changed.stdout, 'widget.example.com/w1 configured\n', changed.stderr);
    assert.equal((await kubectl.run(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.color}'])).stdout, 'blue');
    const serverSide = await kubectl.run(['apply', '--server-side', '--force-conflicts', '-f', file('crd.yaml', CRD_YAML)]);
    assert.equal(serverSide.stdout, 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com serverside-applied\n', serverSide.stderr);
  });

  it('explains the custom resource from its schema', async () => {
    const explained = await kubectl.run(['explain', 'widget.spec.color']);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /^GROUP:\s+example\.com\nKIND:\s+Widget\nVERSION:\s+v1\n/);
    assert.match(explained.stdout, /FIELD: color <string>/);
    assert.match(explained.stdout, /The color of the widget\./);
  });

  it('scales through the scale subresource and deletes the CRD with its instances', async () => {
    const scaled = await kubectl.run(['scale', 'widget', 'w1', '--replicas=3']);
    assert.equal(scaled.stdout, 'widget.example.com/w1 scaled\n', scaled.stderr);
    assert.equal((await kubectl.run(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas}'])).stdout, '3');
    const deleted = await kubectl.run(['delete', 'crd', 'widgets.example.com']);
    assert.equal(deleted.stdout, 'customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n', deleted.stderr);
    const gone = await kubectl.run(['get', 'crd']);
    assert.equal(gone.stderr, 'No resources found\n');
  });
});
