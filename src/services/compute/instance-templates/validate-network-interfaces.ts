import ipaddr from 'ipaddr.js';
import { networkPathExists, subnetworkPathExists } from '../catalog/index.ts';
import { invalidFieldValue } from '../shared/errors.ts';
import type { NetworkInterfaceInput } from './schema.ts';
import { referencePath, type ValidationContext, fieldRootOf } from './validation-context.ts';

/** MAX_NETWORK_INTERFACES is nic0 … nic7. */
export const MAX_NETWORK_INTERFACES = 8;

const NETWORK_PATH = /^projects\/[^/]+\/global\/networks\/[^/]+$/;
const SUBNETWORK_PATH = /^projects\/[^/]+\/regions\/[^/]+\/subnetworks\/[^/]+$/;
const NETWORK_ATTACHMENT = /^projects\/[^/]+\/regions\/[^/]+\/networkAttachments\/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * normalizeNetworkInterfaces validates `properties.networkInterfaces` and returns them as stored:
 * network and subnetwork as resource paths (rendered as full URLs), the default network filled in
 * when neither is given, output-only fields replaced.
 */
export function normalizeNetworkInterfaces(interfaces: readonly NetworkInterfaceInput[], ctx: ValidationContext): Record<string, unknown>[] {
  const base = `${fieldRootOf(ctx)}.networkInterfaces`;
  if (interfaces.length > MAX_NETWORK_INTERFACES) {
    throw invalidFieldValue(base, '', `At most ${MAX_NETWORK_INTERFACES} network interfaces are supported.`);
  }
  return interfaces.map((nic, index) => normalizeInterface(nic, index, `${base}[${index}]`, ctx));
}

function normalizeInterface(nic: NetworkInterfaceInput, index: number, field: string, ctx: ValidationContext): Record<string, unknown> {
  const {
    kind: _kind,
    name: _name,
    fingerprint: _fingerprint,
    ipv6AccessType: _ipv6AccessType,
    accessConfigs,
    ipv6AccessConfigs,
    aliasIpRanges,
    ...rest
  } = nic;
  const out: Record<string, unknown> = { kind: 'compute#networkInterface', ...rest };
  let subnetworkPath: string | undefined;
  if (nic.subnetwork !== undefined && nic.subnetwork !== '') {
    subnetworkPath = referencePath(`${field}.subnetwork`, nic.subnetwork, ctx.project, SUBNETWORK_PATH, 'subnetwork');
    ctx.checkPermission('compute.subnetworks.get', subnetworkPath);
    if (!subnetworkPathExists(subnetworkPath))
      throw invalidFieldValue(`${field}.subnetwork`, nic.subnetwork, 'The referenced subnetwork resource cannot be found.');
    out['subnetwork'] = subnetworkPath;
  }
  let networkPath: string;
  if (nic.network !== undefined && nic.network !== '') {
    networkPath = referencePath(`${field}.network`, nic.network, ctx.project, NETWORK_PATH, 'network');
    ctx.checkPermission('compute.networks.get', networkPath);
    if (!networkPathExists(networkPath)) throw invalidFieldValue(`${field}.network`, nic.network, 'The referenced network resource cannot be found.');
  } else if (subnetworkPath !== undefined) {
    // The network is inferred from the subnetwork; every catalog subnetwork is in the default network.
    networkPath = `${subnetworkPath.split('/regions/')[0]}/global/networks/default`;
  } else {
    networkPath = `projects/${ctx.project}/global/networks/default`;
    ctx.checkPermission('compute.networks.get', networkPath);
  }
  if (subnetworkPath !== undefined && subnetworkPath.split('/')[1] !== networkPath.split('/')[1]) {
    throw invalidFieldValue(`${field}.subnetwork`, nic.subnetwork, `Subnetwork should belong to network '${networkPath}'.`);
  }
  out['network'] = networkPath;
  out['name'] = `nic${index}`;
  if (nic.networkIP !== undefined && !isIpv4(nic.networkIP))
    throw invalidFieldValue(`${field}.networkIP`, nic.networkIP, 'The IP address is not a valid IPv4 address.');
  if (nic.ipv6Address !== undefined && !isIpv6(nic.ipv6Address))
    throw invalidFieldValue(`${field}.ipv6Address`, nic.ipv6Address, 'The IP address is not a valid IPv6 address.');
  if (nic.internalIpv6PrefixLength !== undefined && (nic.internalIpv6PrefixLength < 1 || nic.internalIpv6PrefixLength > 128)) {
    throw invalidFieldValue(`${field}.internalIpv6PrefixLength`, String(nic.internalIpv6PrefixLength), 'Must be between 1 and 128.');
  }
  if (nic.queueCount !== undefined && nic.queueCount < 1)
    throw invalidFieldValue(`${field}.queueCount`, String(nic.queueCount), 'Queue count must be positive.');
  if (nic.vlan !== undefined) {
    if (nic.vlan < 2 || nic.vlan > 255) throw invalidFieldValue(`${field}.vlan`, String(nic.vlan), 'VLAN tag must be between 2 and 255, inclusive.');
    if (nic.parentNicName === undefined || nic.parentNicName === '')
      throw invalidFieldValue(`${field}.parentNicName`, '', 'A dynamic network interface requires the name of its parent interface.');
  }
  if (nic.parentNicName !== undefined && nic.parentNicName !== '' && !/^nic[0-7]$/.test(nic.parentNicName)) {
    throw invalidFieldValue(`${field}.parentNicName`, nic.parentNicName, 'Must be the name of a network interface, nic0 to nic7.');
  }
  if (nic.networkAttachment !== undefined && !NETWORK_ATTACHMENT.test(nic.networkAttachment)) {
    throw invalidFieldValue(
      `${field}.networkAttachment`,
      nic.networkAttachment,
      'Must be of the form projects/<project_number>/regions/<region>/networkAttachments/<name>.',
    );
  }
  const dualStack = nic.stackType === 'IPV4_IPV6' || nic.stackType === 'IPV6_ONLY';
  if (accessConfigs !== undefined) out['accessConfigs'] = normalizeAccessConfigs(accessConfigs, `${field}.accessConfigs`, 'ONE_TO_ONE_NAT', 'External NAT');
  if (ipv6AccessConfigs !== undefined) {
    if (ipv6AccessConfigs.length > 0 && !dualStack) {
      throw invalidFieldValue(`${field}.ipv6AccessConfigs`, '', 'IPv6 access config can only be specified when the stack type is IPV4_IPV6 or IPV6_ONLY.');
    }
    out['ipv6AccessConfigs'] = normalizeAccessConfigs(ipv6AccessConfigs, `${field}.ipv6AccessConfigs`, 'DIRECT_IPV6', 'External IPv6');
  }
  if (aliasIpRanges !== undefined) {
    out['aliasIpRanges'] = aliasIpRanges.map((range, i) => {
      const where = `${field}.aliasIpRanges[${i}].ipCidrRange`;
      if (range.ipCidrRange === undefined || range.ipCidrRange === '') throw invalidFieldValue(where, '', 'An alias IP range must be given.');
      if (!isAliasRange(range.ipCidrRange))
        throw invalidFieldValue(where, range.ipCidrRange, 'The alias IP range must be a single IP address, a netmask (such as /24) or a CIDR range.');
      return { ...range };
    });
  }
  return out;
}

function normalizeAccessConfigs(
  configs: NonNullable<NetworkInterfaceInput['accessConfigs']>,
  field: string,
  onlyType: 'ONE_TO_ONE_NAT' | 'DIRECT_IPV6',
  defaultName: string,
): Record<string, unknown>[] {
  if (configs.length > 1) throw invalidFieldValue(field, '', 'At most one access config currently supported.');
  return configs.map((config, i) => {
    const where = `${field}[${i}]`;
    const type = config.type ?? onlyType;
    if (type !== onlyType) throw invalidFieldValue(`${where}.type`, type, `Only access configs of type ${onlyType} are supported here.`);
    if (onlyType === 'ONE_TO_ONE_NAT') {
      if (config.natIP !== undefined && config.natIP !== '' && !isIpv4(config.natIP))
        throw invalidFieldValue(`${where}.natIP`, config.natIP, 'The IP address is not a valid IPv4 address.');
      if (config.externalIpv6 !== undefined)
        throw invalidFieldValue(`${where}.externalIpv6`, config.externalIpv6, 'externalIpv6 applies only to IPv6 access configs.');
    } else {
      if (config.natIP !== undefined) throw invalidFieldValue(`${where}.natIP`, config.natIP, 'natIP applies only to IPv4 access configs.');
      if (config.externalIpv6 !== undefined && !isIpv6(config.externalIpv6))
        throw invalidFieldValue(`${where}.externalIpv6`, config.externalIpv6, 'The IP address is not a valid IPv6 address.');
    }
    if (config.publicPtrDomainName !== undefined && config.publicPtrDomainName !== '' && config.setPublicPtr !== true) {
      throw invalidFieldValue(`${where}.publicPtrDomainName`, config.publicPtrDomainName, 'publicPtrDomainName can only be set when setPublicPtr is enabled.');
    }
    const { kind: _kind, ...rest } = config;
    return { kind: 'compute#accessConfig', ...rest, type, name: config.name ?? defaultName, networkTier: config.networkTier ?? 'PREMIUM' };
  });
}

function isIpv4(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text);
}

function isIpv6(text: string): boolean {
  return ipaddr.IPv6.isValid(text) && !text.includes('/');
}

function isAliasRange(text: string): boolean {
  if (/^\/\d{1,2}$/.test(text)) return Number(text.slice(1)) <= 32;
  if (isIpv4(text)) return true;
  try {
    const [address] = ipaddr.parseCIDR(text);
    return address.kind() === 'ipv4' && ipaddr.IPv4.isValidFourPartDecimal(text.split('/')[0]!);
  } catch {
    return false;
  }
}
