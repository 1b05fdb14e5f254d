import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { openWatch } from '../../../testing/watch-reader.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

/** indented is how Go's json.MarshalIndent(v, "", "  ") writes a value. */
const indented = (text: string): string => JSON.stringify(JSON.parse(text), null, 2);

describe('pretty output as the apiserver negotiates it', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    await h.call('POST', ROLES, { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  });
  after(async () => h.close());

  const get = (url: string, headers: Record<string, string> = {}) => h.call('GET', url, undefined, headers);
  const assertPretty = (text: string, what: string) => {
    assert.equal(text, indented(text), what);
    assert.match(text, /^\{\n {2}"/, what);
  };
  // Compact is json.Encoder's text: one line and its newline.
  const assertCompact = (text: string, what: string) => assert.equal(text, `${JSON.stringify(JSON.parse(text))}\n`, what);

  it('indents lists, objects and tables with two spaces for pretty=true, TRUE, 1 and t', async () => {
    for (const value of ['true', 'TRUE', 'True', '1', 't']) {
      const list = await get(`${ROLES}?pretty=${value}`);
      assertPretty(list.raw.body, value);
      assert.ok(
        list.raw.body.startsWith('{\n  "kind": "ClusterRoleList",\n  "apiVersion": "rbac.authorization.k8s.io/v1",\n  "metadata": {\n'),
        list.raw.body.slice(0, 120),
      );
    }
    assertPretty((await get(`${ROLES}/reader?pretty=true`)).raw.body, 'object');
    assertPretty((await get(`${ROLES}?pretty=true`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).raw.body, 'table');
  });

  it('reads pretty with strconv.ParseBool: yes, false and an empty value are not pretty', async () => {
    for (const value of ['yes', 'false', '0', '']) assertCompact((await get(`${ROLES}?pretty=${value}`)).raw.body, value);
    assertCompact((await get(ROLES)).raw.body, 'no pretty at all');
  });

  it('indents Status errors and discovery documents, and always /version; never the OpenAPI documents', async () => {
    const missing = await get(`${ROLES}/absent?pretty=true`);
    assert.equal(missing.status, 404);
    assertPretty(missing.raw.body, 'Status');
    assert.equal(
      missing.raw.body,
      indented(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: missing.body.message,
          reason: 'NotFound',
          details: missing.body.details,
          code: 404,
        }),
      ),
    );
    assertPretty((await get('/apis?pretty=true')).raw.body, 'discovery');
    assertPretty((await get('/version')).raw.body, '/version');
    // kube-openapi serves json.Marshal's bytes: compact, and no newline.
    const openapi = (await get('/openapi/v3/apis/rbac.authorization.k8s.io/v1?pretty=true')).raw.body;
    assert.ok(openapi === JSON.stringify(JSON.parse(openapi)), 'OpenAPI is served as it is');
  });

  it('is the default for curl, Wget and browsers, unless pretty says otherwise', async () => {
    for (const agent of ['curl/8.5.0', 'Wget/1.21', 'Mozilla/5.0 (X11; Linux x86_64)'])
      assertPretty((await get(ROLES, { 'user-agent': agent })).raw.body, agent);
    assertCompact((await get(`${ROLES}?pretty=false`, { 'user-agent': 'curl/8.5.0' })).raw.body, 'curl with pretty=false');
    assertPretty((await get(`${ROLES}?pretty=`, { 'user-agent': 'curl/8.5.0' })).raw.body, 'curl with an empty pretty');
    assertCompact((await get(ROLES, { 'user-agent': 'kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd' })).raw.body, 'kubectl');
  });

  it('honours pretty=1 on the accepted media type', async () => {
    assertPretty((await get(ROLES, { accept: 'application/json;pretty=1' })).raw.body, 'Accept pretty=1');
    assertCompact((await get(ROLES, { accept: 'application/json;pretty=0' })).raw.body, 'Accept pretty=0');
  });

  it('keeps watch events one per line, as the stream serializer writes them', async () => {
    const base = await h.listen();
    const watch = await openWatch(`${base}${ROLES}?watch=true&pretty=true&timeoutSeconds=1`, ADMIN_TOKEN);
    await watch.ended;
    assert.deepEqual(
      watch.events.map((event) => event.object.metadata.name),
      ['reader'],
    );
  });
});
