// bench/cluster-admission.ts measures what admission costs a create (issue 37): ConfigMap creates
// on one fogbank (the built CLI, memory store, so the figures are admission's rather than the
// disk's) with no admission configured, through one ValidatingAdmissionPolicy (a CEL validation
// on the object), and through one validating webhook (an AdmissionReview over HTTPS to a node:https
// server in this process, keep-alive), interleaved round by round on the same server: each side
// writes its own configuration and removes the others' before it measures.
// Run alone: node --import tsx bench/cluster-admission.ts [--rounds N] [--quick]
import type autocannon from 'autocannon';
import { startWebhookServer } from '../src/testing/webhook-server.ts';
import { loadSeconds, runLoad } from './lib/load.ts';
import { ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const RULES = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }];

async function send(url: string, method: string, path: string, body?: unknown): Promise<void> {
  const answer = await fetch(`${url}${path}`, { method, headers: json, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (answer.status >= 300 && !(method === 'DELETE' && answer.status === 404)) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
}

function creates(prefix: string): autocannon.Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: CONFIGMAPS,
      headers: json,
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({ metadata: { name: `${prefix}-${counter++}`, labels: { team: 'bench' } }, data: { a: '1' } }),
      }),
    },
  ];
}

async function rate(url: string, prefix: string, seconds: number): Promise<number> {
  const result = await runLoad({ url, requests: creates(prefix), seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${prefix}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requestsPerSecond;
}

/** bench measures ConfigMap creates per second with no admission, one policy and one webhook. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const hooks = await startWebhookServer();
  hooks.handle('/validate', () => ({ allowed: true }));
  const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
  const url = server.url;
  const none = async (): Promise<void> => {
    await send(url, 'DELETE', `${ADMISSION}/validatingadmissionpolicybindings/bench`);
    await send(url, 'DELETE', `${ADMISSION}/validatingadmissionpolicies/bench`);
    await send(url, 'DELETE', `${ADMISSION}/validatingwebhookconfigurations/bench`);
  };
  const policy = async (): Promise<void> => {
    await none();
    await send(url, 'POST', `${ADMISSION}/validatingadmissionpolicies`, {
      metadata: { name: 'bench' },
      spec: {
        matchConstraints: { resourceRules: RULES },
        validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels && size(object.data) < 10" }],
      },
    });
    await send(url, 'POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
      metadata: { name: 'bench' },
      spec: { policyName: 'bench', validationActions: ['Deny'] },
    });
  };
  const webhook = async (): Promise<void> => {
    await none();
    await send(url, 'POST', `${ADMISSION}/validatingwebhookconfigurations`, {
      metadata: { name: 'bench' },
      webhooks: [
        {
          name: 'bench.example.com',
          clientConfig: { url: `${hooks.base}/validate`, caBundle: hooks.caBundle },
          rules: RULES,
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    });
  };
  let round = 0;
  const side = (label: string, configure: () => Promise<void>, prefix: string) => ({
    label,
    measure: async () => {
      await configure();
      await rate(url, `${prefix}-warm-${round}`, 1);
      return rate(url, `${prefix}-${round++}`, seconds);
    },
  });
  try {
    const [plain, policed, hooked] = await interleaved(rounds, [
      side('no admission', none, 'plain'),
      side('one ValidatingAdmissionPolicy', policy, 'policy'),
      side('one validating webhook', webhook, 'webhook'),
    ]);
    return [
      metricOf({
        metric: 'create ConfigMap through one ValidatingAdmissionPolicy',
        unit: 'req/s',
        fogbank: policed,
        baseline: { label: 'no admission', samples: plain },
        goal: ratioAtLeast(0.7, 'no admission'),
        note: `memory store, 16 connections, ${seconds} s a side after 1 s of warm-up; one CEL validation on the object`,
      }),
      metricOf({
        metric: 'create ConfigMap through one validating webhook',
        unit: 'req/s',
        fogbank: hooked,
        baseline: { label: 'no admission', samples: plain },
        goal: ratioAtLeast(0.2, 'no admission'),
        note: 'an AdmissionReview v1 over HTTPS to a node:https server in the bench process (keep-alive), same rounds as the row above',
      }),
    ];
  } finally {
    await server.stop();
    await hooks.close();
  }
};

runAlone(import.meta, bench);
