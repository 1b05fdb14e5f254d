import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyView } from '../apimachinery/strategy.ts';
import type { AdmissionAttributes } from './attributes.ts';
import { type MatchContext, matches, ruleMatches } from './matching.ts';

function attributes(view: Partial<AnyView>, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    view: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', ...view } as AnyView,
    name: 'web',
    namespace: 'default',
    object: { metadata: { name: 'web', labels: { app: 'web' } } },
    oldObject: undefined,
    dryRun: false,
    options: {},
    userInfo: { name: 'alice', groups: [] },
    ...extra,
  };
}

const context: MatchContext = {
  namespaceLabels: async (namespace) => (namespace === 'default' ? { env: 'dev' } : {}),
  servedVersions: (group, resource) => (group === 'example.com' && resource === 'widgets' ? ['v1', 'v2'] : ['v1']),
};

const rule = (resources: string[], extra: Record<string, unknown> = {}) => ({ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources, ...extra });

describe('admission matching', () => {
  it('reads resources as the apiserver does: * top-level only, r/* subresources, */status, */*', () => {
    const status = attributes({ subresource: 'status' });
    assert.equal(ruleMatches(rule(['*']), attributes({}), 'v1', true), true);
    assert.equal(ruleMatches(rule(['*']), status, 'v1', true), false);
    assert.equal(ruleMatches(rule(['deployments/*']), status, 'v1', true), true);
    assert.equal(ruleMatches(rule(['deployments/*']), attributes({}), 'v1', true), false);
    assert.equal(ruleMatches(rule(['*/status']), status, 'v1', true), true);
    assert.equal(ruleMatches(rule(['*/*']), status, 'v1', true), true);
    assert.equal(ruleMatches(rule(['*'], { operations: ['UPDATE'] }), attributes({}), 'v1', true), false);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), attributes({}), 'v1', true), false);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Namespaced' }), attributes({}), 'v1', true), true);
    assert.equal(ruleMatches(rule(['*'], { resourceNames: ['api'] }), attributes({}), 'v1', true), false);
    // A Namespace is cluster-scoped though its request namespace is its own name.
    const namespace = attributes({ group: '', resource: 'namespaces', kind: 'Namespace' }, { namespace: 'web' });
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), namespace, 'v1', true), true);
  });

  it('applies exclusions, the object selector (new or old labels), the namespace selector and Equivalent versions', async () => {
    const base = attributes({});
    assert.equal(await matches({ resourceRules: [rule(['*'])], excludeResourceRules: [rule(['deployments'])] }, base, context, true), false);
    assert.equal(await matches({ resourceRules: [rule(['*'])], objectSelector: { matchLabels: { app: 'api' } } }, base, context, true), false);
    const relabelled = attributes({}, { operation: 'UPDATE', oldObject: { metadata: { labels: { app: 'api' } } } });
    assert.equal(await matches({ resourceRules: [rule(['*'])], objectSelector: { matchLabels: { app: 'api' } } }, relabelled, context, true), true);
    assert.equal(await matches({ resourceRules: [rule(['*'])], namespaceSelector: { matchLabels: { env: 'dev' } } }, base, context, true), true);
    assert.equal(await matches({ resourceRules: [rule(['*'])], namespaceSelector: { matchLabels: { env: 'prod' } } }, base, context, true), false);
    // A policy needs rules; a binding's empty matchResources constrains nothing.
    assert.equal(await matches({}, base, context, true), false);
    assert.equal(await matches({}, base, context, false), true);
    const widget = attributes({ group: 'example.com', version: 'v2', resource: 'widgets', kind: 'Widget' });
    const v1Only = { resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['*'], resources: ['widgets'] }] };
    assert.equal(await matches(v1Only, widget, context, true), true);
    assert.equal(await matches({ ...v1Only, matchPolicy: 'Exact' }, widget, context, true), false);
  });
});
