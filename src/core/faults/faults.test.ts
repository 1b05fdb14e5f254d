import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { seededIds } from '../../lib/ids.ts';
import type { DiscoveryApi, DiscoveryMethod } from '../discovery.ts';
import type { ServiceDefinition } from '../service.ts';
import { Faults, type FaultRequest } from './faults.ts';
import { FaultRuleError, globPattern } from './rule.ts';

const method = (id: string, httpMethod: DiscoveryMethod['httpMethod'], path: string, upload = false): DiscoveryMethod => ({
  id,
  httpMethod,
  path,
  parameters: {},
  parameterOrder: [],
  scopes: [],
  ...(upload ? { mediaUpload: { accept: ['*/*'], maxSize: 1 } } : {}),
});

const api = (name: string, servicePath: string, methods: DiscoveryMethod[]): DiscoveryApi => ({
  name,
  version: 'v1',
  title: name,
  description: '',
  documentationLink: '',
  servicePath,
  batchPath: '',
  scopes: {},
  methods,
  schemas: {},
});

const family = (name: string, extra: Partial<ServiceDefinition>): ServiceDefinition => ({
  name,
  pathPrefixes: [`/${name}`],
  renderError: () => ({ status: 500, headers: {}, body: {} }),
  register: async () => undefined,
  ...extra,
});

const COMPUTE = family('compute', {
  faultEffects: ['operationError'],
  discovery: async () => [
    api('compute', 'compute/v1/', [
      method('compute.instanceTemplates.insert', 'POST', 'projects/{project}/global/instanceTemplates'),
      method('compute.instanceTemplates.get', 'GET', 'projects/{project}/global/instanceTemplates/{instanceTemplate}'),
      method('compute.instanceTemplates.getIamPolicy', 'GET', 'projects/{project}/global/instanceTemplates/{resource}/getIamPolicy'),
    ]),
  ],
});
const MAIL = family('mail', {
  faultEffects: ['dropAfterBytes'],
  discovery: async () => [api('gmail', '', [method('gmail.users.messages.send', 'POST', 'gmail/v1/users/{userId}/messages/send', true)])],
});
const CLUSTER = family('cluster', {
  faultEffects: ['watch'],
  faultMethods: async () => ({
    methodOf: (verb, url) =>
      url.startsWith('/apis/') ? `${verb === 'GET' ? (url.includes('watch=true') ? 'watch' : 'get') : 'create'} clusterroles` : undefined,
    problem: (id) => (id === 'get clusterroles' || id === 'create clusterroles' ? undefined : `unknown resource in "${id}"`),
    principalOf: () => 'system:admin',
  }),
});

const newFaults = (): Faults => new Faults([COMPUTE, MAIL, CLUSTER], seededIds('faults'));

const request = (verb: string, path: string, principal?: string): FaultRequest => ({
  method: verb,
  path: path.split('?')[0]!,
  url: path,
  request: {} as FastifyRequest,
  principal: () => principal,
});

const INSERT = request('POST', '/compute/v1/projects/p/global/instanceTemplates');

describe('fault rules are validated with precise messages', () => {
  const refused = async (rule: unknown, message: string): Promise<void> => {
    await assert.rejects(newFaults().add(rule), (error: unknown) => error instanceof FaultRuleError && error.message === message);
  };

  it('refuses a rule that is not an object', () => refused([], 'a fault rule must be a JSON object'));
  it('refuses a rule without an effect', () =>
    refused(
      { method: 'compute.instanceTemplates.insert' },
      'a fault rule needs one effect: "status", "operationError", "latencyMs", "reset", "watch", "dropAfterBytes"',
    ));
  it('refuses a rule with two effects', () => refused({ status: 429, latencyMs: 10 }, 'a fault rule has one effect; this one has "status" and "latencyMs"'));
  it('refuses an unknown member', () => refused({ status: 429, sttaus: 1 }, 'unknown member "sttaus" in a fault rule'));
  it('refuses a status outside 400-599', () => refused({ status: 200 }, '"status" must be an HTTP error status from 400 to 599'));
  it('refuses a probability of 0 or above 1', () => refused({ status: 500, probability: 1.5 }, '"probability" must be a number greater than 0 and at most 1'));
  it('refuses times of 0', () => refused({ status: 500, times: 0 }, '"times" must be an integer from 1 up'));
  it('refuses retryAfter on a latency rule', () =>
    refused({ latencyMs: 5, retryAfter: 1 }, '"retryAfter" qualifies "status", but this rule\'s effect is "latencyMs"'));
  it('refuses an unknown family, naming the families', () =>
    refused({ family: 'storage', status: 500 }, 'unknown family "storage" (the families are compute, mail, cluster)'));
  it('refuses an unknown method id of a family, naming it', () =>
    refused(
      { family: 'compute', method: 'compute.instanceTemplates.inster', status: 500 },
      'family compute: unknown method id "compute.instanceTemplates.inster" (the methods are compute.instanceTemplates.get, compute.instanceTemplates.getIamPolicy, compute.instanceTemplates.insert)',
    ));
  it('refuses a method id no family serves', () =>
    refused(
      { method: 'storage.objects.insert', status: 500 },
      'unknown method id "storage.objects.insert": no family serves it (Google methods are Discovery ids such as compute.instanceTemplates.insert; cluster ones a verb and resource such as "get clusterroles")',
    ));
  it('refuses a method of another family than the one named', () =>
    refused(
      { family: 'mail', method: 'compute.instanceTemplates.insert', status: 500 },
      'family mail: unknown method id "compute.instanceTemplates.insert" (the methods are gmail.users.messages.send)',
    ));
  it('refuses a watch effect on a mail method', () =>
    refused({ method: 'gmail.users.messages.send', watch: 'gone' }, '"watch" cannot be applied to family mail (only to cluster)'));
  it('refuses a family effect without a family', () =>
    refused({ operationError: { code: 'QUOTA_EXCEEDED' } }, '"operationError" needs a "family" or "method" of compute'));
  it('refuses an operationError code that is not a code word', () =>
    refused({ family: 'compute', operationError: { code: 'quota' } }, '"operationError.code" must be an upper-case code word such as "QUOTA_EXCEEDED"'));
  it('refuses a quotaInfo without a limit', () =>
    refused(
      { family: 'compute', operationError: { code: 'QUOTA_EXCEEDED', quotaInfo: { metricName: 'm', limitName: 'l' } } },
      '"operationError.quotaInfo.limit" must be a number',
    ));
  it('refuses a reset that is neither before nor after the headers', () => refused({ reset: 'during' }, '"reset" must be "before-headers" or "after-headers"'));
});

describe('fault rules match requests', () => {
  it('infers the family from a method id and answers the rule with an id', async () => {
    const faults = newFaults();
    const rule = await faults.add({ method: 'compute.instanceTemplates.insert', status: 429 });
    assert.deepEqual(rule, { id: '1', method: 'compute.instanceTemplates.insert', status: 429, family: 'compute' });
    assert.deepEqual(faults.list(), [rule]);
  });

  it('matches a Google method by HTTP method and path, the more literal path first', async () => {
    const faults = newFaults();
    await faults.add({ method: 'compute.instanceTemplates.getIamPolicy', status: 503 });
    assert.equal(faults.take('compute', request('GET', '/compute/v1/projects/p/global/instanceTemplates/t')), undefined);
    assert.equal(faults.take('compute', request('POST', '/compute/v1/projects/p/global/instanceTemplates/t/getIamPolicy')), undefined);
    assert.equal(faults.take('compute', request('GET', '/compute/v1/projects/p/global/instanceTemplates/t/getIamPolicy'))?.status, 503);
    assert.equal(faults.methodOf('compute', 'GET', '/compute/v1/projects/p/global/instanceTemplates/t'), 'compute.instanceTemplates.get');
  });

  it('names any request of a family once its methods are loaded, rules or not', async () => {
    const faults = newFaults();
    assert.equal(faults.methodOf('compute', 'POST', '/compute/v1/projects/p/global/instanceTemplates?requestId=1'), undefined);
    const methods = await faults.methods('compute');
    assert.equal(methods?.methodOf('POST', '/compute/v1/projects/p/global/instanceTemplates?requestId=1'), 'compute.instanceTemplates.insert');
    assert.equal(faults.methodOf('compute', 'POST', '/compute/v1/projects/p/global/instanceTemplates'), 'compute.instanceTemplates.insert');
    assert.equal(await faults.methods('storage'), undefined);
  });

  it('matches a media method on its upload paths, and PUT on them (resumable chunks)', async () => {
    const faults = newFaults();
    await faults.add({ method: 'gmail.users.messages.send', status: 503 });
    assert.equal(faults.take('mail', request('POST', '/upload/gmail/v1/users/me/messages/send'))?.status, 503);
    assert.equal(faults.take('mail', request('PUT', '/upload/gmail/v1/users/me/messages/send?uploadType=resumable&upload_id=x'))?.status, 503);
    assert.equal(faults.take('mail', request('POST', '/gmail/v1/users/me/messages/send'))?.status, 503);
    assert.equal(faults.take('mail', request('PUT', '/gmail/v1/users/me/messages/send')), undefined);
  });

  it('matches only the family named', async () => {
    const faults = newFaults();
    await faults.add({ family: 'mail', status: 500 });
    assert.equal(faults.take('compute', INSERT), undefined);
    assert.equal(faults.take('mail', request('GET', '/gmail/v1/users/me/labels'))?.status, 500);
  });

  it('matches a path glob: * within a segment, ** across segments', async () => {
    assert.ok(globPattern('/compute/v1/projects/*/global/**').test('/compute/v1/projects/p/global/instanceTemplates/t'));
    assert.ok(!globPattern('/compute/v1/projects/*/global').test('/compute/v1/projects/p/q/global'));
    const faults = newFaults();
    await faults.add({ path: '/gmail/v1/users/*/labels', status: 500 });
    assert.equal(faults.take('mail', request('GET', '/gmail/v1/users/me/messages')), undefined);
    assert.equal(faults.take('mail', request('GET', '/gmail/v1/users/me/labels'))?.status, 500);
  });

  it('matches a principal by token email, and a cluster user the family way', async () => {
    const faults = newFaults();
    await faults.add({ family: 'compute', principal: 'ci@example.com', status: 403 });
    await faults.add({ family: 'cluster', principal: 'system:admin', status: 429 });
    assert.equal(faults.take('compute', request('POST', '/x', 'other@example.com')), undefined);
    assert.equal(faults.take('compute', request('POST', '/x', 'ci@example.com'))?.status, 403);
    assert.equal(faults.take('cluster', request('GET', '/apis/x', 'someone-else'))?.status, 429);
  });

  it('names cluster requests by verb and resource', async () => {
    const faults = newFaults();
    await faults.add({ method: 'get clusterroles', status: 429, retryAfter: 1 });
    assert.equal(faults.take('cluster', request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles')), undefined);
    assert.equal(faults.take('cluster', request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles'))?.retryAfter, 1);
  });

  it('fires for the next `times` matches, then removes the rule', async () => {
    const faults = newFaults();
    await faults.add({ method: 'compute.instanceTemplates.insert', status: 429, times: 2 });
    assert.equal(faults.take('compute', INSERT)?.status, 429);
    assert.equal(faults.list()[0]?.times, 1);
    assert.equal(faults.take('compute', INSERT)?.status, 429);
    assert.equal(faults.take('compute', INSERT), undefined);
    assert.ok(faults.empty);
  });

  it('skips the first `after` matches', async () => {
    const faults = newFaults();
    await faults.add({ method: 'compute.instanceTemplates.insert', status: 500, after: 2, times: 1 });
    assert.equal(faults.take('compute', request('GET', '/compute/v1/projects/p/global/instanceTemplates/t')), undefined);
    assert.equal(faults.take('compute', INSERT), undefined);
    assert.equal(faults.take('compute', INSERT), undefined);
    assert.equal(faults.take('compute', INSERT)?.status, 500);
    assert.equal(faults.take('compute', INSERT), undefined);
  });

  it('fires with a probability drawn from the injected id source, the same every run', async () => {
    const fired = async (): Promise<string> => {
      const faults = newFaults();
      await faults.add({ family: 'compute', status: 503, probability: 0.5 });
      let pattern = '';
      for (let i = 0; i < 40; i++) pattern += faults.take('compute', INSERT) === undefined ? '.' : 'x';
      return pattern;
    };
    const first = await fired();
    assert.equal(await fired(), first);
    const count = [...first].filter((c) => c === 'x').length;
    assert.ok(count > 5 && count < 35, first);
  });

  it('removes one rule by id and clears them all', async () => {
    const faults = newFaults();
    const one = await faults.add({ family: 'mail', status: 500 });
    await faults.add({ family: 'compute', status: 500 });
    assert.equal(faults.remove(one.id), true);
    assert.equal(faults.remove(one.id), false);
    assert.deepEqual(
      faults.list().map((rule) => rule.family),
      ['compute'],
    );
    faults.clear();
    assert.deepEqual(faults.list(), []);
  });
});
