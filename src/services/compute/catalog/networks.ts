import { ownValue } from '../../../core/own.ts';
import { link, type Links } from '../shared/links.ts';
import { REGION_NAMES, REGIONS, type Scope } from '../shared/locations.ts';
import { stableId } from './stable-id.ts';

/**
 * Every project has the auto-mode `default` network, with one `default` subnetwork per region,
 * as new projects do. These are read-only here.
 */

/** DEFAULT_NETWORK is the name of the network every project has. */
export const DEFAULT_NETWORK = 'default';

const CREATED = '2024-01-01T00:00:00.000-08:00';

/** networkExists is true for `projects/P/global/networks/default`. */
export function networkPathExists(path: string): boolean {
  return /^projects\/[^/]+\/global\/networks\/default$/.test(path);
}

/** subnetworkPathExists is true for the default subnetwork of a catalog region. */
export function subnetworkPathExists(path: string): boolean {
  const match = /^projects\/[^/]+\/regions\/([^/]+)\/subnetworks\/default$/.exec(path);
  return match !== null && ownValue(REGIONS, match[1]!) !== undefined;
}

/** renderDefaultNetwork is the wire form of a project's default network. */
export function renderDefaultNetwork(project: string, links: Links): Record<string, unknown> {
  const path = `projects/${project}/global/networks/default`;
  return {
    kind: 'compute#network',
    id: stableId(path),
    creationTimestamp: CREATED,
    name: DEFAULT_NETWORK,
    description: 'Default network for the project',
    selfLink: link(links, path),
    selfLinkWithId: link(links, `projects/${project}/global/networks/${stableId(path)}`),
    autoCreateSubnetworks: true,
    subnetworks: REGION_NAMES.map((region) => link(links, `projects/${project}/regions/${region}/subnetworks/default`)),
    routingConfig: { routingMode: 'REGIONAL' },
    networkFirewallPolicyEnforcementOrder: 'AFTER_CLASSIC_FIREWALL',
  };
}

/**
 * AUTO_MODE_SUBNET_RANGES are the /20 ranges an auto-mode network's subnet gets in each region
 * (the public "Auto mode IPv4 ranges" table: the second octet grows by 2 in the order regions
 * opened, so it is a table, not a formula).
 */
export const AUTO_MODE_SUBNET_RANGES: Readonly<Record<string, string>> = {
  'us-central1': '10.128.0.0/20',
  'europe-west1': '10.132.0.0/20',
  'us-west1': '10.138.0.0/20',
  'asia-east1': '10.140.0.0/20',
  'us-east1': '10.142.0.0/20',
  'asia-northeast1': '10.146.0.0/20',
  'asia-southeast1': '10.148.0.0/20',
  'us-east4': '10.150.0.0/20',
  'australia-southeast1': '10.152.0.0/20',
  'europe-west2': '10.154.0.0/20',
  'europe-west3': '10.156.0.0/20',
  'southamerica-east1': '10.158.0.0/20',
  'asia-south1': '10.160.0.0/20',
  'northamerica-northeast1': '10.162.0.0/20',
  'europe-west4': '10.164.0.0/20',
  'europe-north1': '10.166.0.0/20',
  'us-west2': '10.168.0.0/20',
  'asia-east2': '10.170.0.0/20',
  'europe-west6': '10.172.0.0/20',
  'asia-northeast2': '10.174.0.0/20',
  'asia-northeast3': '10.178.0.0/20',
  'us-west3': '10.180.0.0/20',
  'us-west4': '10.182.0.0/20',
  'asia-southeast2': '10.184.0.0/20',
  'europe-central2': '10.186.0.0/20',
  'northamerica-northeast2': '10.188.0.0/20',
  'asia-south2': '10.190.0.0/20',
  'australia-southeast2': '10.192.0.0/20',
  'southamerica-west1': '10.194.0.0/20',
  'europe-west8': '10.198.0.0/20',
  'europe-west9': '10.200.0.0/20',
  'us-east5': '10.202.0.0/20',
  'europe-southwest1': '10.204.0.0/20',
  'us-south1': '10.206.0.0/20',
  'me-west1': '10.208.0.0/20',
  'europe-west12': '10.210.0.0/20',
  'me-central1': '10.212.0.0/20',
  'europe-west10': '10.214.0.0/20',
  'me-central2': '10.216.0.0/20',
  'africa-south1': '10.218.0.0/20',
  'northamerica-south1': '10.224.0.0/20',
  'europe-north2': '10.226.0.0/20',
  'asia-southeast3': '10.232.0.0/20',
};

/** subnetRange gives a region's default subnetwork its auto-mode range. */
export function subnetRange(region: string): string {
  const range = AUTO_MODE_SUBNET_RANGES[region];
  // The catalog test keeps every region in the table; reaching this is a programming error.
  if (range === undefined) throw new Error(`no auto-mode subnet range for region ${region}`);
  return range;
}

/** renderDefaultSubnetwork is the wire form of a region's default subnetwork. */
export function renderDefaultSubnetwork(project: string, region: string, links: Links): Record<string, unknown> {
  const path = `projects/${project}/regions/${region}/subnetworks/default`;
  const range = subnetRange(region);
  return {
    kind: 'compute#subnetwork',
    id: stableId(path),
    creationTimestamp: CREATED,
    name: 'default',
    network: link(links, `projects/${project}/global/networks/default`),
    ipCidrRange: range,
    gatewayAddress: range.replace('.0.0/20', '.0.1'),
    region: link(links, `projects/${project}/regions/${region}`),
    selfLink: link(links, path),
    privateIpGoogleAccess: false,
    fingerprint: Buffer.from(stableId(path).slice(0, 8)).toString('base64'),
    purpose: 'PRIVATE',
    stackType: 'IPV4_ONLY',
  };
}

/** DefaultSubnetwork is one region's default subnetwork, as aggregatedList groups resources by scope. */
export interface DefaultSubnetwork {
  readonly region: string;
  readonly scope: Scope;
}

/** defaultSubnetworks lists the default subnetwork of every catalog region. */
export function defaultSubnetworks(): DefaultSubnetwork[] {
  return REGION_NAMES.map((region) => ({ region, scope: { kind: 'region', name: region } }));
}
