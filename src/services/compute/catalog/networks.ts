import { ownValue } from '../../../core/own.ts';
import { link, type Links } from '../shared/links.ts';
import { REGION_NAMES, REGIONS } from '../shared/locations.ts';
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

/** subnetRange gives each region's default subnetwork its auto-mode /20 range. */
function subnetRange(region: string): string {
  return `10.${128 + REGION_NAMES.indexOf(region) * 2}.0.0/20`;
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
