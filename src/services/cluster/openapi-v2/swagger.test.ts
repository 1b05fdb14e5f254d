import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';
import { DocumentSchema, type Schema } from './openapi-v2_pb.ts';
import { negotiateSwagger } from './swagger-answer.ts';
import { swaggerDocumentOf, swaggerSchemaOf } from './swagger.ts';

const PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('swaggerSchemaOf (v3 → v2)', () => {
  it('turns the allOf wrapper into a $ref beside its description, and int-or-string into a string', () => {
    assert.deepEqual(
      swaggerSchemaOf({
        type: 'object',
        properties: {
          metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {}, description: 'Standard.' },
          items: { type: 'array', items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container', default: {} } },
          port: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
          labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
        },
      }),
      {
        type: 'object',
        properties: {
          metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: 'Standard.' },
          items: { type: 'array', items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' } },
          port: { format: 'int-or-string', 'x-kubernetes-int-or-string': true, type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
        },
      },
    );
  });

  it("gives a CRD schema the v2 form kubectl can validate with (apiextensions' ToStructuralOpenAPIV2)", () => {
    assert.deepEqual(
      swaggerSchemaOf({
        type: 'object',
        required: ['spec', 'note'],
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { size: { type: 'integer', anyOf: [{ minimum: 1 }], allOf: [{ maximum: 9 }] } },
          },
          note: { type: 'string', nullable: true },
          tags: { type: 'array', nullable: true, items: { type: 'string' } },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        },
      }),
      {
        type: 'object',
        required: ['spec'],
        properties: {
          spec: { 'x-kubernetes-preserve-unknown-fields': true },
          note: {},
          tags: {},
          port: { 'x-kubernetes-int-or-string': true },
        },
      },
    );
  });

  it('moves a request body to the body parameter and media types to consumes/produces', () => {
    const document = swaggerDocumentOf(
      [
        {
          paths: {
            '/api/v1/namespaces/{namespace}/configmaps': {
              post: {
                description: 'create a ConfigMap',
                operationId: 'createConfigMap',
                parameters: [{ name: 'dryRun', in: 'query', description: 'dry', schema: { type: 'string', uniqueItems: true } }],
                requestBody: { content: { '*/*': { schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' } } }, required: true },
                responses: {
                  '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' } } } },
                },
                'x-kubernetes-action': 'post',
              },
            },
          },
          components: { schemas: { 'io.k8s.api.core.v1.ConfigMap': { type: 'object', properties: {} } } },
        },
      ],
      'v1.32.0',
    );
    assert.deepEqual((document['paths'] as Record<string, Record<string, unknown>>)['/api/v1/namespaces/{namespace}/configmaps']?.['post'], {
      description: 'create a ConfigMap',
      operationId: 'createConfigMap',
      'x-kubernetes-action': 'post',
      consumes: ['*/*'],
      produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
      schemes: ['https'],
      parameters: [
        { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } },
        { name: 'dryRun', in: 'query', description: 'dry', type: 'string', uniqueItems: true },
      ],
      responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } } },
    });
    assert.equal(document['swagger'], '2.0');
  });
});

describe('negotiateSwagger (kube-openapi handler)', () => {
  it('serves JSON or protobuf by the Accept header, and nothing else', () => {
    assert.equal(negotiateSwagger(undefined), 'json');
    assert.equal(negotiateSwagger('application/json'), 'json');
    assert.equal(negotiateSwagger(PROTOBUF_ACCEPT), 'protobuf');
    assert.equal(negotiateSwagger('application/com.github.proto-openapi.spec.v2.v1.0+protobuf'), 'protobuf');
    assert.equal(negotiateSwagger('application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf'), 'protobuf');
    assert.equal(negotiateSwagger('text/html'), undefined);
  });
});

describe('GET /openapi/v2', () => {
  let cluster: ClusterHarness;
  before(async () => {
    cluster = await startHarness();
  });
  after(async () => cluster.close());

  it('is a Swagger 2.0 document of every served kind whose every $ref resolves', async () => {
    const response = await cluster.call('GET', '/openapi/v2', undefined, { accept: 'application/json' });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/json');
    assert.equal(response.headers['vary'], 'Accept');
    const definitions = response.body.definitions as Record<string, Record<string, unknown>>;
    assert.deepEqual(definitions['io.k8s.api.apps.v1.Deployment']?.['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    assert.ok(response.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch);
    const refs = JSON.stringify(response.body).match(/"\$ref":"[^"]*"/g) ?? [];
    assert.ok(refs.length > 100);
    for (const ref of new Set(refs)) {
      const name = ref.slice('"$ref":"#/definitions/'.length, -1);
      assert.ok(definitions[name] !== undefined, `${ref} resolves`);
    }
    assert.ok(!JSON.stringify(response.body).includes('#/components/'));
  });

  it('answers the protobuf form kubectl asks for, with the same definitions and GVK extensions', async () => {
    const json = await cluster.call('GET', '/openapi/v2', undefined, { accept: 'application/json' });
    const response = await cluster.call('GET', '/openapi/v2', undefined, { accept: PROTOBUF_ACCEPT });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(response.headers['etag'], json.headers['etag']);
    const document = fromBinary(DocumentSchema, response.raw.rawPayload);
    assert.equal(document.swagger, '2.0');
    const named = new Map(document.definitions?.additionalProperties.map((entry) => [entry.name, entry.value]) ?? []);
    assert.equal(named.size, Object.keys(json.body.definitions).length);
    const deployment = named.get('io.k8s.api.apps.v1.Deployment') as Schema;
    assert.deepEqual(deployment.type?.value, ['object']);
    const gvk = deployment.vendorExtension.find((entry) => entry.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(JSON.parse(gvk?.value?.yaml ?? 'null'), [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    const spec = deployment.properties?.additionalProperties.find((entry) => entry.name === 'spec');
    assert.equal(spec?.value?.Ref, '#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
    const patch = document.paths?.path.find((entry) => entry.name === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')?.value?.patch;
    assert.ok(patch?.vendorExtension.some((entry) => entry.name === 'x-kubernetes-group-version-kind'));
  });

  it('revalidates with the ETag (304) and refuses what it cannot produce (406)', async () => {
    const first = await cluster.call('GET', '/openapi/v2', undefined, { accept: PROTOBUF_ACCEPT });
    const again = await cluster.call('GET', '/openapi/v2', undefined, { accept: PROTOBUF_ACCEPT, 'if-none-match': String(first.headers['etag']) });
    assert.equal(again.status, 304);
    assert.equal(again.headers['cache-control'], 'no-cache, private');
    assert.equal(again.headers['etag'], first.headers['etag']);
    assert.equal(again.raw.rawPayload.length, 0);
    const refused = await cluster.call('GET', '/openapi/v2', undefined, { accept: 'text/html' });
    assert.equal(refused.status, 406);
  });
});
