import type { Random } from './random.ts';

/** KNOWN names resources the fuzz run creates first, so requests also reach existing state. */
export const KNOWN = {
  project: 'p',
  region: 'us-central1',
  zone: 'us-central1-a',
  template: 'fuzz-template',
  policy: 'fuzz-policy',
  clusterrole: 'fuzz-role',
  clusterrolebinding: 'fuzz-binding',
  role: 'fuzz-role',
  rolebinding: 'fuzz-binding',
  namespace: 'fuzz-ns',
  event: 'fuzz-event',
  object: 'fuzz-object',
  backendService: 'fuzz-backend',
  instance: 'fuzz-vm',
  instanceGroupManager: 'fuzz-mig',
} as const;

/** Plausible values for each kind of path parameter, by the parameter's name. */
const PLAUSIBLE: Readonly<Record<string, readonly string[]>> = {
  project: [KNOWN.project, 'other-project', 'debian-cloud'],
  region: [KNOWN.region, 'europe-west1', 'nowhere-1'],
  zone: [KNOWN.zone, 'europe-west1-b', 'nowhere-1-z'],
  template: [KNOWN.template, 'missing-template', 'Bad_Name'],
  policy: [KNOWN.policy, 'missing-policy', '-bad-'],
  image: ['debian-12-bookworm-v20240312', 'missing-image'],
  family: ['debian-12', 'missing-family'],
  network: ['default', 'missing-network'],
  subnetwork: ['default', 'missing-subnet'],
  operation: ['operation-0-missing', 'operation-1'],
  clusterrole: [KNOWN.clusterrole, 'view', 'missing-role', 'Bad_Name'],
  clusterrolebinding: [KNOWN.clusterrolebinding, 'missing-binding'],
  role: [KNOWN.role, 'missing-role', 'system:controller:bootstrap-signer'],
  rolebinding: [KNOWN.rolebinding, 'missing-binding'],
  namespace: [KNOWN.namespace, 'default', 'missing-ns'],
  event: [KNOWN.event, 'missing-event'],
  // A ServiceAccount (the TokenRequest subresource): the one every namespace has, and a missing one.
  name: ['default', 'missing-account'],
  object: [KNOWN.object, 'missing-object', 'Bad_Name'],
  // A CRD: the seeded one that may be deleted, a missing one, a bad name (the seeded widgets CRD stays for its custom resource's routes).
  crd: ['gadgets.fuzz.example.com', 'missing.example.com', 'Bad_Name'],
  userId: ['me', 'someone@example.com', 'other@example.com'],
  packageName: ['com.example.fuzz', 'com.example.other', 'Not.A.Package'],
  // The web console's routes (src/console/server/).
  mailbox: ['admin@fogbank.local', 'someone@example.com'],
  partId: ['0', '1', '0.1', '9'],
  file: ['main.js', 'missing.css'],
  // compute's backend services (issue 43).
  backendService: [KNOWN.backendService, 'missing-backend', 'Bad_Name'],
  instance: [KNOWN.instance, 'missing-vm', 'Bad_Name'],
  instanceGroupManager: [KNOWN.instanceGroupManager, 'missing-mig', 'Bad_Name'],
  // The console's compute keys (one encoded segment: `project/location/name`) and instance actions (issue 43 item 5).
  key: [
    `${KNOWN.project}%2Fglobal%2F${KNOWN.policy}`,
    `${KNOWN.project}%2Fzones%2F${KNOWN.zone}%2F${KNOWN.instance}`,
    `${KNOWN.project}%2Fzones%2F${KNOWN.zone}%2F${KNOWN.instanceGroupManager}`,
    `${KNOWN.project}%2Fglobal%2F${KNOWN.backendService}`,
    `${KNOWN.project}%2Fregions%2F${KNOWN.region}%2F${KNOWN.backendService}`,
    'p%2Fglobal%2Fmissing',
    '%2F%2F',
  ],
  method: ['stop', 'start', 'reset', 'explode'],
};

/** Path values that reach Object.prototype when a table is indexed with them carelessly (zones are `<region>-<letter>`). */
const PROTOTYPE_SEGMENTS: readonly string[] = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'constructor-a',
  '__proto__-b',
  'toString-c',
];

/**
 * fillPath replaces each `:param` of a route pattern with a plausible value for its name (or, for
 * a name it has never seen, a valid-looking one), so the request reaches the handler; now and
 * then with a prototype-named value instead.
 */
export function fillPath(pattern: string, random: Random): string {
  // `::` is Fastify's literal colon (`/_fogbank/securityPolicies::evaluate`), not a parameter.
  return pattern.replace(/::|:([A-Za-z_]+)/g, (_match, name: string | undefined) => {
    if (name === undefined) return ':';
    if (random.chance(0.04)) return random.pick(PROTOTYPE_SEGMENTS);
    const choices = Object.hasOwn(PLAUSIBLE, name) ? PLAUSIBLE[name]! : [`x${random.text(6)}`];
    return random.pick(choices);
  });
}

/** paramCount is how many `:param` segments a route pattern has. */
export function paramCount(pattern: string): number {
  return pattern.match(/::|:[A-Za-z_]+/g)?.filter((match) => match !== '::').length ?? 0;
}

/** fillPathWith is fillPath, except the `index`th parameter is `value` as given. */
export function fillPathWith(pattern: string, random: Random, index: number, value: string): string {
  let seen = -1;
  return pattern.replace(/::|:([A-Za-z_]+)/g, (match) => {
    if (match === '::') return ':';
    seen++;
    return seen === index ? value : fillPath(match, random);
  });
}
