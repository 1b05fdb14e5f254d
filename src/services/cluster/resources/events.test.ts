import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const V1 = '/apis/events.k8s.io/v1';
const CORE = '/api/v1';

function event(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name },
    eventTime: '2025-01-01T00:00:00.000000Z',
    reportingController: 'example.com/controller',
    reportingInstance: 'controller-1',
    action: 'Reconcile',
    reason: 'Reconciled',
    type: 'Normal',
    note: 'all good',
    regarding: { kind: 'Pod', name: 'web-1', namespace: 'default', uid: 'u-1', apiVersion: 'v1' },
    ...extra,
  };
}

describe('Event validation (reference §5.2)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  async function rejected(path: string, body: unknown, message: string): Promise<void> {
    const before = await h.store.currentRevision();
    const response = await h.call('POST', path, body);
    assert.equal(response.status, 422, JSON.stringify(response.body));
    assert.equal(response.body.message, message);
    assert.equal(response.body.details.kind, 'Event');
    assert.equal('group' in response.body.details, false, 'the core group is omitted (StatusDetails.group is omitempty)');
    assert.equal(await h.store.currentRevision(), before, 'nothing is stored');
  }

  it('requires eventTime, a known type, and unset deprecated fields via events.k8s.io/v1', async () => {
    await rejected(
      `${V1}/namespaces/default/events`,
      event('e1', {
        eventTime: undefined,
        type: 'Odd',
        deprecatedCount: 3,
        deprecatedSource: { component: 'x' },
        deprecatedFirstTimestamp: '2025-01-01T00:00:00Z',
        deprecatedLastTimestamp: '2025-01-01T00:00:00Z',
      }),
      'Event "e1" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Odd, firstTimestamp: Invalid value: "": needs to be unset, lastTimestamp: Invalid value: "": needs to be unset, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]',
    );
  });

  it('checks reportingController, lengths and the series', async () => {
    await rejected(
      `${V1}/namespaces/default/events`,
      event('e2', {
        reportingController: 'not/a/qualified',
        reportingInstance: 'i'.repeat(129),
        action: 'a'.repeat(129),
        reason: 'r'.repeat(129),
        note: 'n'.repeat(1025),
        series: { count: 1 },
      }),
      "Event \"e2\" is invalid: [reportingController: Invalid value: \"not/a/qualified\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'), reportingInstance: Invalid value: \"\": can have at most 128 characters, action: Invalid value: \"\": can have at most 128 characters, reason: Invalid value: \"\": can have at most 128 characters, message: Invalid value: \"\": can have at most 1024 characters, series.count: Invalid value: \"\": should be at least 2, series.lastObservedTime: Required value]",
    );
  });

  it("counts the length limits in UTF-8 bytes, as Go's len() does, through both APIs", async () => {
    // 513 × "é" is 513 UTF-16 units but 1,026 bytes; "€" is 3 bytes, "😀" 4 (and 2 UTF-16 units).
    await rejected(
      `${V1}/namespaces/default/events`,
      event('e-bytes', { note: 'é'.repeat(513), reportingInstance: 'é'.repeat(65), action: '€'.repeat(43), reason: '😀'.repeat(33) }),
      'Event "e-bytes" is invalid: [reportingInstance: Invalid value: "": can have at most 128 characters, action: Invalid value: "": can have at most 128 characters, reason: Invalid value: "": can have at most 128 characters, message: Invalid value: "": can have at most 1024 characters]',
    );
    const core = {
      metadata: { name: 'c-bytes' },
      involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingComponent: 'example.com/controller',
      reportingInstance: 'controller-1',
      action: 'Reconcile',
      reason: 'Reconciled',
      type: 'Normal',
      message: 'é'.repeat(513),
    };
    await rejected(`${CORE}/namespaces/default/events`, core, 'Event "c-bytes" is invalid: message: Invalid value: "": can have at most 1024 characters');
    const fits = await h.call(
      'POST',
      `${V1}/namespaces/default/events`,
      event('e-fits', { note: 'é'.repeat(512), reportingInstance: 'é'.repeat(64), action: '€'.repeat(42), reason: '😀'.repeat(32) }),
    );
    assert.equal(fits.status, 201, JSON.stringify(fits.body));
    const coreFits = await h.call('POST', `${CORE}/namespaces/default/events`, { ...core, metadata: { name: 'c-fits' }, message: 'é'.repeat(512) });
    assert.equal(coreFits.status, 201, JSON.stringify(coreFits.body));
    // Leave the namespace as the later tests expect it.
    for (const name of ['e-fits', 'c-fits']) assert.equal((await h.call('DELETE', `${V1}/namespaces/default/events/${name}`)).status, 200);
  });

  it('counts the qualified-name limit of reportingController in bytes too (32 × "é" is 64 bytes)', async () => {
    const response = await h.call('POST', `${V1}/namespaces/default/events`, event('e-rc', { reportingController: 'é'.repeat(32) }));
    assert.equal(response.status, 422);
    const causes = response.body.details.causes as Array<{ field: string; message: string }>;
    assert.deepEqual(causes[0], {
      reason: 'FieldValueInvalid',
      field: 'reportingController',
      message: `Invalid value: "${'é'.repeat(32)}": name part must be no more than 63 characters`,
    });
  });

  it('needs regarding.namespace unless the event lives in default or kube-system', async () => {
    await h.call('POST', `${CORE}/namespaces`, { metadata: { name: 'team' } });
    await rejected(
      `${V1}/namespaces/team/events`,
      event('e3', { regarding: { kind: 'Node', name: 'n1' } }),
      'Event "e3" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace',
    );
    const ok = await h.call('POST', `${V1}/namespaces/kube-system/events`, event('e3', { regarding: { kind: 'Node', name: 'n1' } }));
    assert.equal(ok.status, 201);
  });

  it('requires DNS-subdomain names via events.k8s.io/v1 only', async () => {
    await rejected(
      `${V1}/namespaces/default/events`,
      event('Bad_Name'),
      "Event \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
    const legacy = await h.call('POST', `${CORE}/namespaces/default/events`, {
      metadata: { name: 'Legacy_Name' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Old',
      message: 'core v1 keeps only the legacy checks',
    });
    assert.equal(legacy.status, 201);
  });

  it('answers 404 for an event in a missing namespace', async () => {
    const before = await h.store.currentRevision();
    const response = await h.call('POST', `${V1}/namespaces/ghost/events`, event('e4', { regarding: { kind: 'Pod', name: 'p', namespace: 'ghost' } }));
    assert.equal(response.status, 404);
    assert.equal(response.body.message, 'namespaces "ghost" not found');
    assert.deepEqual(response.body.details, { name: 'ghost', kind: 'namespaces' });
    assert.equal(await h.store.currentRevision(), before);
  });

  it('keeps everything but the series, labels and annotations immutable on update', async () => {
    const created = await h.call('POST', `${V1}/namespaces/default/events`, event('imm'));
    assert.equal(created.status, 201);
    const before = await h.store.currentRevision();
    const changed = await h.call('PUT', `${V1}/namespaces/default/events/imm`, { ...created.body, note: 'changed', reason: 'Other' });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.body.message,
      'Event "imm" is invalid: [reason: Invalid value: "Other": field is immutable, message: Invalid value: "changed": field is immutable]',
    );
    assert.equal(await h.store.currentRevision(), before);
    const series = await h.call('PUT', `${V1}/namespaces/default/events/imm`, {
      ...created.body,
      series: { count: 2, lastObservedTime: '2025-01-01T00:05:00.000000Z' },
      metadata: { ...created.body.metadata, labels: { seen: 'twice' } },
    });
    assert.equal(series.status, 200);
    assert.deepEqual(series.body.series, { count: 2, lastObservedTime: '2025-01-01T00:05:00.000000Z' });
  });

  it('serves the same stored event through both groups, converted both ways', async () => {
    const created = await h.call('POST', `${V1}/namespaces/default/events`, event('both'));
    const core = await h.call('GET', `${CORE}/namespaces/default/events/both`);
    assert.equal(core.status, 200);
    assert.deepEqual(
      { ...core.body, metadata: undefined },
      {
        kind: 'Event',
        apiVersion: 'v1',
        metadata: undefined,
        involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default', uid: 'u-1', apiVersion: 'v1' },
        reason: 'Reconciled',
        message: 'all good',
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        type: 'Normal',
        eventTime: '2025-01-01T00:00:00.000000Z',
        action: 'Reconcile',
        reportingComponent: 'example.com/controller',
        reportingInstance: 'controller-1',
      },
    );
    assert.equal(core.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    // A core-v1 write is read back through events.k8s.io/v1.
    const legacy = await h.call('POST', `${CORE}/namespaces/default/events`, {
      metadata: { name: 'legacy' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Started',
      message: 'm',
      count: 3,
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2025-01-01T00:00:00Z',
      lastTimestamp: '2025-01-01T00:01:00Z',
      type: 'Normal',
    });
    assert.equal(legacy.status, 201);
    const viaV1 = await h.call('GET', `${V1}/namespaces/default/events/legacy`);
    assert.equal(viaV1.body.note, 'm');
    assert.equal(viaV1.body.deprecatedCount, 3);
    assert.deepEqual(viaV1.body.deprecatedSource, { component: 'kubelet', host: 'node-1' });
    assert.equal(viaV1.body.deprecatedFirstTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(viaV1.body.eventTime, null);
    assert.deepEqual(viaV1.body.regarding, { kind: 'Pod', name: 'p', namespace: 'default' });
  });

  it('supports the real field selectors per group (reference §7)', async () => {
    const v1 = await h.call('GET', `${V1}/events?fieldSelector=regarding.name%3Dweb-1,type%3DNormal`);
    assert.equal(v1.status, 200);
    assert.deepEqual(v1.body.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort(), ['both', 'imm']);
    const core = await h.call('GET', `${CORE}/events?fieldSelector=involvedObject.name%3Dweb-1,source%3D`);
    assert.deepEqual(core.body.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort(), ['both', 'imm']);
    const wrong = await h.call('GET', `${V1}/events?fieldSelector=involvedObject.name%3Dweb-1`);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.message, 'field label not supported: involvedObject.name');
    const roles = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?fieldSelector=rules%3Dx');
    assert.equal(roles.status, 400);
    assert.equal(roles.body.message, 'field label not supported: rules');
    const syntax = await h.call('GET', `${V1}/events?fieldSelector=reason`);
    assert.equal(syntax.status, 400);
    assert.equal(syntax.body.message, "invalid selector: 'reason'; can't understand 'reason'");
  });

  it('prints the real Event table columns with ages', async () => {
    h.clock.advance(5 * 60_000);
    const table = await h.call('GET', `${CORE}/namespaces/default/events/legacy`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(table.headers['content-type'], 'application/json;as=Table;v=v1;g=meta.k8s.io');
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`),
      ['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1'],
    );
    assert.deepEqual(table.body.rows[0].cells, ['4m', 'Normal', 'Started', 'pod/p', '', 'kubelet, node-1', 'm', '5m', 3, 'legacy']);
    assert.equal(table.body.rows[0].object.kind, 'PartialObjectMetadata');
  });
});
