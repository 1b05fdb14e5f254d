import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

// The bodies a 1.32 apiserver writes, byte for byte: metav1.Status through json.NewEncoder(w).Encode
// (a trailing newline; `<`, `>`, `&` escaped), StatusDetails' members all omitempty (no
// `"group":""` for the core group), and json.MarshalIndent's text, with no newline, when pretty.
describe('Status bodies byte for byte', () => {
  let h: ClusterHarness;
  let uid = '';
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'app' }, data: { page: '<b>&</b>' } });
    assert.equal(created.status, 201);
    uid = created.body.metadata.uid;
    assert.equal(
      (
        await h.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
          metadata: { name: 'web' },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
          },
        })
      ).status,
      201,
    );
  });
  after(async () => h.close());

  it('writes a core resource NotFound without a group, ending with a newline', async () => {
    const answer = await h.call('GET', '/api/v1/namespaces/default/configmaps/missing');
    assert.equal(answer.status, 404);
    assert.equal(
      answer.raw.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404}\n',
    );
  });

  it('writes a group resource NotFound and AlreadyExists with their group', async () => {
    const missing = await h.call('GET', '/apis/apps/v1/namespaces/default/deployments/missing');
    assert.equal(
      missing.raw.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","group":"apps","kind":"deployments"},"code":404}\n',
    );
    const again = await h.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'app' } });
    assert.equal(
      again.raw.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"app\\" already exists","reason":"AlreadyExists","details":{"name":"app","kind":"configmaps"},"code":409}\n',
    );
  });

  // The bodies kubernetes-client/python's e2e suite (v22.6.0, test_utils.py) compares exactly.
  it('writes the AlreadyExists bodies the Python client e2e suite expects, for a Service and a Deployment', async () => {
    const service = { metadata: { name: 'mock-2' }, spec: { ports: [{ port: 80 }] } };
    assert.equal((await h.call('POST', '/api/v1/namespaces/default/services', service)).status, 201);
    const again = await h.call('POST', '/api/v1/namespaces/default/services', service);
    assert.equal(
      again.raw.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"services \\"mock-2\\" already exists","reason":"AlreadyExists","details":{"name":"mock-2","kind":"services"},"code":409}\n',
    );
    const deployment = await h.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    assert.equal(
      deployment.raw.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" already exists","reason":"AlreadyExists","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}\n',
    );
  });

  it('writes an Invalid with its causes in Go field order', async () => {
    const answer = await h.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'Bad' } });
    assert.equal(answer.status, 422);
    assert.match(
      answer.raw.body,
      /^\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"ConfigMap \\"Bad\\" is invalid: metadata.name: Invalid value: \\"Bad\\": [^"]*","reason":"Invalid","details":\{"name":"Bad","kind":"ConfigMap","causes":\[\{"reason":"FieldValueInvalid","message":"Invalid value: \\"Bad\\": [^"]*","field":"metadata.name"\}\]\},"code":422\}\n$/,
    );
  });

  it('writes the unknown-path NotFound with empty details', async () => {
    const answer = await h.call('GET', '/apis/apps/v1/namespaces/default/nothings');
    assert.equal(
      answer.raw.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n',
    );
  });

  it('writes a pretty Status as MarshalIndent does: indented, no trailing newline', async () => {
    const answer = await h.call('GET', '/api/v1/namespaces/default/configmaps/missing?pretty=true');
    assert.equal(
      answer.raw.body,
      [
        '{',
        '  "kind": "Status",',
        '  "apiVersion": "v1",',
        '  "metadata": {},',
        '  "status": "Failure",',
        '  "message": "configmaps \\"missing\\" not found",',
        '  "reason": "NotFound",',
        '  "details": {',
        '    "name": "missing",',
        '    "kind": "configmaps"',
        '  },',
        '  "code": 404',
        '}',
      ].join('\n'),
    );
  });

  it('ends every compact object answer with a newline and escapes as Go does; pretty ones have none', async () => {
    const read = await h.call('GET', '/api/v1/namespaces/default/configmaps/app');
    assert.ok(read.raw.body.endsWith('}\n'));
    assert.ok(read.raw.body.includes('"page":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"'), read.raw.body);
    const pretty = await h.call('GET', '/api/v1/namespaces/default/configmaps/app', undefined, { 'user-agent': 'curl/8.5.0' });
    assert.ok(pretty.raw.body.endsWith('}'));
    assert.ok(pretty.raw.body.includes('"page": "\\u003cb\\u003e\\u0026\\u003c/b\\u003e"'));
    for (const path of ['/api/v1/namespaces/default/configmaps', '/api', '/apis', '/api/v1', '/apis/apps/v1']) {
      const answer = await h.call('GET', path);
      assert.equal(answer.status, 200, path);
      assert.ok(answer.raw.body.endsWith('}\n'), `${path} ends with json.Encoder's newline`);
    }
    const version = await h.call('GET', '/version');
    assert.ok(version.raw.body.endsWith('}'), '/version is WriteRawJSON: indented, no newline');
  });

  it('writes the Status of a DELETE that answers one, core and group', async () => {
    const core = await h.call('DELETE', '/api/v1/namespaces/default/configmaps/app');
    assert.equal(
      core.raw.body,
      `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"app","kind":"configmaps","uid":"${uid}"}}\n`,
    );
    const read = await h.call('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    const group = await h.call('DELETE', '/apis/apps/v1/namespaces/default/deployments/web');
    assert.equal(
      group.raw.body,
      `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"web","group":"apps","kind":"deployments","uid":"${read.body.metadata.uid}"}}\n`,
    );
  });
});
