import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness, type HarnessResponse } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const YAML = { 'content-type': 'application/yaml' };

/** roleWithLabels is a ClusterRole in block YAML (not JSON) with `count` labels: about 20 bytes a label. */
function roleWithLabels(name: string, count: number): string {
  const labels = Array.from({ length: count }, (_, i) => `    k${i}: v${i}`).join('\n');
  return `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\n  labels:\n${labels}\nrules: []\n`;
}

/** A comment long enough to send a body to the decoding threads. */
const PADDING = `# ${'x'.repeat(10_000)}\n`;

/** laughs is a billion-laughs body: nine levels of nine aliases each. */
function laughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(',')}]`,
    );
  return lines.join('\n');
}

const status = (code: number, reason: string, message: string): Record<string, unknown> => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

describe('large YAML bodies decode off the event loop', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  it('answers small GETs one after another while a 1 MiB YAML mapping is decoded, then creates it', async () => {
    const body = roleWithLabels('big', 56_000);
    assert.ok(body.length > 1000_000 && body.length <= 1024 * 1024, `${body.length} bytes`);
    let inFlight = true;
    const created = h.call('POST', ROLES, body, YAML).finally(() => (inFlight = false));
    // Each GET starts when the one before has answered: if decoding held the event loop, none
    // could answer until it ended.
    let answeredMeanwhile = 0;
    while (inFlight) {
      const got = await h.call('GET', '/api/v1/namespaces/default');
      assert.equal(got.status, 200);
      if (inFlight) answeredMeanwhile++;
    }
    const response = await created;
    assert.equal(response.status, 201, JSON.stringify(response.body).slice(0, 300));
    assert.equal(Object.keys(response.body.metadata.labels).length, 56_000);
    assert.ok(answeredMeanwhile >= 50, `only ${answeredMeanwhile} GETs were answered while the YAML body was in flight`);
  });

  it('takes large YAML that is JSON text, and short YAML, as before', async () => {
    const json = JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'json-text', labels: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, `v${i}`])) },
      rules: [],
    });
    assert.equal((await h.call('POST', ROLES, json, YAML)).status, 201);
    assert.equal((await h.call('POST', ROLES, roleWithLabels('short', 2), YAML)).status, 201);
  });
});

describe('large YAML bodies: the same refusals as short ones', () => {
  let threaded: ClusterHarness;
  let inline: ClusterHarness;
  before(async () => {
    threaded = await startHarness({ bootstrapPolicy: true });
    inline = await startHarness({ bootstrapPolicy: true, yamlBodies: { inlineLimit: Number.POSITIVE_INFINITY } });
  });
  after(async () => Promise.all([threaded.close(), inline.close()]));

  const alice = { ...YAML, authorization: 'Bearer alice-token' };
  const cases: [string, string, string, Record<string, unknown>][] = [
    [
      'a depth bomb of 20000 [',
      SSAR,
      `${PADDING}${'['.repeat(20000)}`,
      status(400, 'BadRequest', 'error converting YAML to JSON: yaml: line 2: exceeded max depth of 100'),
    ],
    [
      'a block sequence bomb',
      SSAR,
      `${PADDING}${'- '.repeat(5000)}x`,
      status(400, 'BadRequest', 'error converting YAML to JSON: yaml: line 2: exceeded max depth of 100'),
    ],
    ['an alias nesting itself', SSAR, `${PADDING}a: &a [*a]`, status(400, 'BadRequest', 'error converting YAML to JSON: yaml: exceeded max depth of 100')],
    ['a billion laughs', SSAR, `${PADDING}${laughs()}`, status(400, 'BadRequest', 'error converting YAML to JSON: yaml: document contains excessive aliasing')],
  ];
  for (const [what, url, body, expected] of cases) {
    it(`answers ${what} with the inline parser's Status`, async () => {
      const [fromThread, fromInline] = await Promise.all([threaded.call('POST', url, body, alice), inline.call('POST', url, body, alice)]);
      assert.deepEqual(fromThread.body, expected);
      assert.deepEqual(fromInline.body, expected);
    });
  }

  it('answers text that is not YAML with the library message, as inline', async () => {
    const body = `${PADDING}a: [1\nb: }`;
    const [fromThread, fromInline] = await Promise.all([threaded.call('POST', SSAR, body, alice), inline.call('POST', SSAR, body, alice)]);
    assert.equal(fromThread.status, 400);
    assert.match(fromThread.body.message, /^error converting YAML to JSON: /);
    assert.deepEqual(fromThread.body, fromInline.body);
  });
});

describe('large YAML bodies: bounded', () => {
  it('answers a body past the decoding deadline with a 400 naming the limit, and serves the requests after it', async () => {
    const h = await startHarness({ yamlBodies: { deadlineMs: 1 } });
    try {
      const late = await h.call('POST', ROLES, roleWithLabels('late', 20_000), YAML);
      assert.equal(late.status, 400);
      assert.deepEqual(
        late.body,
        status(
          400,
          'BadRequest',
          "error converting YAML to JSON: yaml: decoding took longer than 1ms, fogbank's limit for a YAML body (JSON bodies have none)",
        ),
      );
      assert.equal((await h.call('POST', ROLES, roleWithLabels('after', 3), YAML)).status, 201);
      assert.equal((await h.call('GET', `${ROLES}/after`)).status, 200);
    } finally {
      await h.close();
    }
  });

  it('refuses a large body that finds every decoding thread busy and no room to wait, with the apiserver 429', async () => {
    const h = await startHarness({ yamlBodies: { workers: 1, queueLimit: 0 } });
    try {
      const answers: HarnessResponse[] = await Promise.all([
        h.call('POST', ROLES, roleWithLabels('one', 5000), YAML),
        h.call('POST', ROLES, roleWithLabels('two', 5000), YAML),
      ]);
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 429]);
      const refused = answers.find((answer) => answer.status === 429)!;
      assert.deepEqual(refused.body, { ...status(429, 'TooManyRequests', 'Too many requests, please try again later.'), details: { retryAfterSeconds: 1 } });
      assert.equal(refused.headers['retry-after'], '1');
    } finally {
      await h.close();
    }
  });

  it('answers a large body in flight when the server closes with the apiserver shutdown 503', async () => {
    const h = await startHarness();
    const inFlight = h.call('POST', ROLES, roleWithLabels('closing', 40_000), YAML);
    await h.close();
    const answer = await inFlight;
    assert.deepEqual(answer.body, status(503, 'ServiceUnavailable', 'apiserver is shutting down'));
    assert.equal(answer.headers['retry-after'], '1');
  });
});
