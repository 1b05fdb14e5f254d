import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';

/**
 * Table-driven tests of instanceTemplates.insert through the HTTP surface: one row per rule of
 * the specification's area-B tables that the server enforces, each with its exact status, reason
 * and message, and each proving the rejected request changed nothing. Then the fields the server
 * fills in on a successful insert.
 */

const ADMIN = { authorization: 'Bearer admin' };
const INSERT = '/compute/v1/projects/p/global/instanceTemplates';
const NAME_REGEX = '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)';
const BOOT_SOURCE_RULE = 'Exactly one of initializeParams.sourceImage, initializeParams.sourceSnapshot or source must be specified for a new boot disk.';
const DEBIAN = 'projects/debian-cloud/global/images/family/debian-12';
const CENTOS = 'projects/centos-cloud/global/images/family/centos-stream-9';
const KEY_32 = Buffer.alloc(32, 7).toString('base64');
const KMS_KEY = 'projects/p/locations/global/keyRings/r/cryptoKeys/k';

let srv: RunningFogbank;
const clock = new ManualClock(Date.UTC(2025, 0, 1));

before(async () => {
  srv = await startFogbank({
    host: '127.0.0.1',
    port: 0,
    store: 'memory',
    operations: 'instant',
    adminToken: 'admin',
    logLevel: 'silent',
    clock,
    ids: seededIds('insert-validation'),
  });
});
after(async () => {
  await srv.close();
});

/** LooseJson is a parsed JSON body whose fields the tests read freely, as many response shapes are asserted. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary nested fields of many response shapes
type LooseJson = Record<string, any>;

interface Reply {
  readonly status: number;
  readonly body: LooseJson;
}

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = ADMIN): Promise<Reply> {
  const response = await srv.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: response.statusCode, body: response.json() };
}

/** state is what a rejected insert must leave untouched: every template and every Operation. */
async function state(): Promise<{ templates: string[]; operations: number }> {
  const templates = await call('GET', '/compute/v1/projects/p/aggregated/instanceTemplates');
  const operations = await call('GET', '/compute/v1/projects/p/aggregated/operations');
  const names = Object.values(templates.body['items'] as Record<string, { instanceTemplates?: { name: string }[] }>).flatMap((scope) =>
    (scope.instanceTemplates ?? []).map((t) => t.name),
  );
  const ops = Object.values(operations.body['items'] as Record<string, { operations?: unknown[] }>).reduce(
    (n, scope) => n + (scope.operations?.length ?? 0),
    0,
  );
  return { templates: names.sort(), operations: ops };
}

function assertError(reply: Reply, status: number, reason: string, message: string): void {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  const error = reply.body['error'] as LooseJson;
  assert.equal(error['code'], status);
  assert.equal(error['message'], message);
  assert.deepEqual(error['errors'], [{ message, domain: 'global', reason }]);
}

const props = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ machineType: 'e2-small', ...extra });
const body = (extra: Record<string, unknown> = {}, name = 'bad'): Record<string, unknown> => ({ name, properties: props(extra) });
const nic = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ network: 'global/networks/default', ...extra });
const nics = (...list: Record<string, unknown>[]): Record<string, unknown> => body({ networkInterfaces: list });
const bootDisk = (extra: Record<string, unknown> = {}, params: Record<string, unknown> = { sourceImage: DEBIAN }): Record<string, unknown> => ({
  boot: true,
  initializeParams: params,
  ...extra,
});
const disks = (...list: Record<string, unknown>[]): Record<string, unknown> => body({ disks: list });
const dataDisk = (params: Record<string, unknown>): Record<string, unknown> => disks(bootDisk(), { initializeParams: params });
const scheduling = (value: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => body({ scheduling: value, ...extra });

const invalid = (field: string, value: string, reason: string): string => `Invalid value for field '${field}': '${value}'. ${reason}`;
const P = 'resource.properties';
const NIC0 = `${P}.networkInterfaces[0]`;
const DISK0 = `${P}.disks[0]`;
const DISK1 = `${P}.disks[1]`;

interface Case {
  readonly rule: string;
  readonly body: unknown;
  readonly status?: number;
  readonly reason?: string;
  readonly message: string;
}

const LABEL_KEY_RULE = (key: string): string =>
  `Label key '${key}' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed.`;
const LABEL_VALUE_RULE = (value: string): string =>
  `Label value '${value}' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed.`;

const CASES: readonly Case[] = [
  // name
  { rule: 'name missing', body: { properties: props() }, reason: 'required', message: "Required field 'resource.name' not specified" },
  { rule: 'name empty', body: { name: '', properties: props() }, reason: 'required', message: "Required field 'resource.name' not specified" },
  { rule: 'name with upper case and underscore', body: body({}, 'T_1'), message: invalid('resource.name', 'T_1', `Must be a match of regex '${NAME_REGEX}'`) },
  { rule: 'name starting with a digit', body: body({}, '1abc'), message: invalid('resource.name', '1abc', `Must be a match of regex '${NAME_REGEX}'`) },
  { rule: 'name ending with a dash', body: body({}, 'abc-'), message: invalid('resource.name', 'abc-', `Must be a match of regex '${NAME_REGEX}'`) },
  {
    rule: 'name of 64 characters',
    body: body({}, 'a'.repeat(64)),
    message: invalid('resource.name', 'a'.repeat(64), `Must be a match of regex '${NAME_REGEX}'`),
  },
  // properties and machineType
  { rule: 'properties missing', body: { name: 'bad' }, reason: 'required', message: "Required field 'resource.properties' not specified" },
  {
    rule: 'machineType missing',
    body: { name: 'bad', properties: {} },
    reason: 'required',
    message: "Required field 'resource.properties.machineType' not specified",
  },
  {
    rule: 'machineType empty',
    body: { name: 'bad', properties: { machineType: '' } },
    reason: 'required',
    message: "Required field 'resource.properties.machineType' not specified",
  },
  {
    rule: 'machineType not a name',
    body: { name: 'bad', properties: { machineType: 'E2_SMALL' } },
    message: invalid(`${P}.machineType`, 'E2_SMALL', 'Invalid machine type name.'),
  },
  // tags
  {
    rule: 'tag not RFC 1035',
    body: body({ tags: { items: ['web', 'Bad_Tag'] } }),
    message: invalid(`${P}.tags.items[1]`, 'Bad_Tag', `Must be a match of regex '${NAME_REGEX}'`),
  },
  {
    rule: 'tag of 64 characters',
    body: body({ tags: { items: ['t'.repeat(64)] } }),
    message: invalid(`${P}.tags.items[0]`, 't'.repeat(64), `Must be a match of regex '${NAME_REGEX}'`),
  },
  // labels and resource manager tags
  { rule: 'label key with upper case', body: body({ labels: { Env: 'prod' } }), message: invalid(`${P}.labels.key`, 'Env', LABEL_KEY_RULE('Env')) },
  {
    rule: 'label key of 64 characters',
    body: body({ labels: { ['k'.repeat(64)]: 'v' } }),
    message: invalid(`${P}.labels.key`, 'k'.repeat(64), LABEL_KEY_RULE('k'.repeat(64))),
  },
  { rule: 'label value with upper case', body: body({ labels: { env: 'Prod' } }), message: invalid(`${P}.labels.value`, 'Prod', LABEL_VALUE_RULE('Prod')) },
  {
    rule: 'more than 64 labels',
    body: body({ labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) }),
    message: invalid(`${P}.labels`, '', 'At most 64 labels are allowed.'),
  },
  {
    rule: 'resourceManagerTags key form',
    body: body({ resourceManagerTags: { 'tagKeys/abc': 'tagValues/1' } }),
    message: invalid(`${P}.resourceManagerTags`, 'tagKeys/abc', 'Keys must be of the form tagKeys/{tag_key_id}.'),
  },
  {
    rule: 'resourceManagerTags value form',
    body: body({ resourceManagerTags: { 'tagKeys/1': 'v' } }),
    message: invalid(`${P}.resourceManagerTags["tagKeys/1"]`, 'v', 'Values must be of the form tagValues/{tag_value_id}.'),
  },
  // metadata
  {
    rule: 'metadata duplicate keys',
    body: body({
      metadata: {
        items: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      },
    }),
    message: invalid(`${P}.metadata.items`, '', 'Metadata has duplicate keys: a.'),
  },
  {
    rule: 'metadata key with a space',
    body: body({ metadata: { items: [{ key: 'bad key', value: '1' }] } }),
    message: invalid(`${P}.metadata.items[0].key`, 'bad key', "Must be a match of regex '[a-zA-Z0-9-_]{1,128}'"),
  },
  {
    rule: 'metadata key missing',
    body: body({ metadata: { items: [{ value: '1' }] } }),
    message: invalid(`${P}.metadata.items[0].key`, '', "Must be a match of regex '[a-zA-Z0-9-_]{1,128}'"),
  },
  {
    rule: 'metadata key of 129 characters',
    body: body({ metadata: { items: [{ key: 'k'.repeat(129), value: '1' }] } }),
    message: invalid(`${P}.metadata.items[0].key`, 'k'.repeat(129), "Must be a match of regex '[a-zA-Z0-9-_]{1,128}'"),
  },
  {
    rule: 'metadata value over 256 KiB',
    body: body({ metadata: { items: [{ key: 'big', value: 'x'.repeat(262_145) }] } }),
    message: invalid(`${P}.metadata.items[0].value`, '', 'Metadata value is too large: 262145 bytes; the limit is 262144 bytes.'),
  },
  {
    rule: 'metadata over 512 KiB in total',
    body: body({ metadata: { items: ['a', 'b', 'c'].map((key) => ({ key, value: 'x'.repeat(200_000) })) } }),
    message: invalid(`${P}.metadata`, '', 'Metadata is too large: 600003 bytes; the limit is 524288 bytes.'),
  },
  // network interfaces
  {
    rule: 'network not found',
    body: nics(nic({ network: 'global/networks/other' })),
    message: invalid(`${NIC0}.network`, 'global/networks/other', 'The referenced network resource cannot be found.'),
  },
  {
    rule: 'network URL of the wrong collection',
    body: nics(nic({ network: 'projects/p/regions/us-central1/networks/default' })),
    message: invalid(`${NIC0}.network`, 'projects/p/regions/us-central1/networks/default', 'The URL is malformed. Expected a reference to a network.'),
  },
  {
    rule: 'subnetwork not found',
    body: nics({ subnetwork: 'regions/us-central1/subnetworks/other' }),
    message: invalid(`${NIC0}.subnetwork`, 'regions/us-central1/subnetworks/other', 'The referenced subnetwork resource cannot be found.'),
  },
  {
    rule: 'subnetwork in an unknown region',
    body: nics({ subnetwork: 'regions/atlantis1/subnetworks/default' }),
    message: invalid(`${NIC0}.subnetwork`, 'regions/atlantis1/subnetworks/default', 'The referenced subnetwork resource cannot be found.'),
  },
  {
    rule: 'subnetwork URL of the wrong collection',
    body: nics({ subnetwork: 'global/subnetworks/default' }),
    message: invalid(`${NIC0}.subnetwork`, 'global/subnetworks/default', 'The URL is malformed. Expected a reference to a subnetwork.'),
  },
  {
    rule: 'subnetwork outside the network',
    body: nics(nic({ network: 'projects/p/global/networks/default', subnetwork: 'projects/q/regions/us-central1/subnetworks/default' })),
    message: invalid(
      `${NIC0}.subnetwork`,
      'projects/q/regions/us-central1/subnetworks/default',
      "Subnetwork should belong to network 'projects/p/global/networks/default'.",
    ),
  },
  {
    rule: 'networkIP not IPv4',
    body: nics(nic({ networkIP: '10.0.0.256' })),
    message: invalid(`${NIC0}.networkIP`, '10.0.0.256', 'The IP address is not a valid IPv4 address.'),
  },
  {
    rule: 'ipv6Address not IPv6',
    body: nics(nic({ ipv6Address: '10.0.0.1' })),
    message: invalid(`${NIC0}.ipv6Address`, '10.0.0.1', 'The IP address is not a valid IPv6 address.'),
  },
  {
    rule: 'internalIpv6PrefixLength out of range',
    body: nics(nic({ internalIpv6PrefixLength: 129 })),
    message: invalid(`${NIC0}.internalIpv6PrefixLength`, '129', 'Must be between 1 and 128.'),
  },
  { rule: 'queueCount zero', body: nics(nic({ queueCount: 0 })), message: invalid(`${NIC0}.queueCount`, '0', 'Queue count must be positive.') },
  {
    rule: 'more than one access config',
    body: nics(nic({ accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }, { type: 'ONE_TO_ONE_NAT' }] })),
    message: invalid(`${NIC0}.accessConfigs`, '', 'At most one access config currently supported.'),
  },
  {
    rule: 'access config of type DIRECT_IPV6',
    body: nics(nic({ accessConfigs: [{ type: 'DIRECT_IPV6' }] })),
    message: invalid(`${NIC0}.accessConfigs[0].type`, 'DIRECT_IPV6', 'Only access configs of type ONE_TO_ONE_NAT are supported here.'),
  },
  {
    rule: 'natIP not IPv4',
    body: nics(nic({ accessConfigs: [{ natIP: '300.1.1.1' }] })),
    message: invalid(`${NIC0}.accessConfigs[0].natIP`, '300.1.1.1', 'The IP address is not a valid IPv4 address.'),
  },
  {
    rule: 'externalIpv6 on an IPv4 access config',
    body: nics(nic({ accessConfigs: [{ externalIpv6: '2600::1' }] })),
    message: invalid(`${NIC0}.accessConfigs[0].externalIpv6`, '2600::1', 'externalIpv6 applies only to IPv6 access configs.'),
  },
  {
    rule: 'publicPtrDomainName without setPublicPtr',
    body: nics(nic({ accessConfigs: [{ publicPtrDomainName: 'vm.example.com.' }] })),
    message: invalid(`${NIC0}.accessConfigs[0].publicPtrDomainName`, 'vm.example.com.', 'publicPtrDomainName can only be set when setPublicPtr is enabled.'),
  },
  {
    rule: 'IPv6 access config without dual stack',
    body: nics(nic({ ipv6AccessConfigs: [{ type: 'DIRECT_IPV6' }] })),
    message: invalid(`${NIC0}.ipv6AccessConfigs`, '', 'IPv6 access config can only be specified when the stack type is IPV4_IPV6 or IPV6_ONLY.'),
  },
  {
    rule: 'IPv6 access config with stack type IPV4_ONLY',
    body: nics(nic({ stackType: 'IPV4_ONLY', ipv6AccessConfigs: [{}] })),
    message: invalid(`${NIC0}.ipv6AccessConfigs`, '', 'IPv6 access config can only be specified when the stack type is IPV4_IPV6 or IPV6_ONLY.'),
  },
  {
    rule: 'IPv6 access config of type ONE_TO_ONE_NAT',
    body: nics(nic({ stackType: 'IPV4_IPV6', ipv6AccessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] })),
    message: invalid(`${NIC0}.ipv6AccessConfigs[0].type`, 'ONE_TO_ONE_NAT', 'Only access configs of type DIRECT_IPV6 are supported here.'),
  },
  {
    rule: 'more than one IPv6 access config',
    body: nics(nic({ stackType: 'IPV4_IPV6', ipv6AccessConfigs: [{}, {}] })),
    message: invalid(`${NIC0}.ipv6AccessConfigs`, '', 'At most one access config currently supported.'),
  },
  {
    rule: 'natIP on an IPv6 access config',
    body: nics(nic({ stackType: 'IPV4_IPV6', ipv6AccessConfigs: [{ natIP: '1.2.3.4' }] })),
    message: invalid(`${NIC0}.ipv6AccessConfigs[0].natIP`, '1.2.3.4', 'natIP applies only to IPv4 access configs.'),
  },
  {
    rule: 'alias range missing',
    body: nics(nic({ aliasIpRanges: [{ subnetworkRangeName: 'pods' }] })),
    message: invalid(`${NIC0}.aliasIpRanges[0].ipCidrRange`, '', 'An alias IP range must be given.'),
  },
  ...['10.0.0.0/33', '/33', 'fd00::/64', '10.0.0'].map(
    (range): Case => ({
      rule: `alias range ${range}`,
      body: nics(nic({ aliasIpRanges: [{ ipCidrRange: '/24' }, { ipCidrRange: range }] })),
      message: invalid(
        `${NIC0}.aliasIpRanges[1].ipCidrRange`,
        range,
        'The alias IP range must be a single IP address, a netmask (such as /24) or a CIDR range.',
      ),
    }),
  ),
  {
    rule: 'vlan below 2',
    body: nics(nic(), nic({ vlan: 1, parentNicName: 'nic0' })),
    message: invalid(`${P}.networkInterfaces[1].vlan`, '1', 'VLAN tag must be between 2 and 255, inclusive.'),
  },
  {
    rule: 'vlan above 255',
    body: nics(nic(), nic({ vlan: 256, parentNicName: 'nic0' })),
    message: invalid(`${P}.networkInterfaces[1].vlan`, '256', 'VLAN tag must be between 2 and 255, inclusive.'),
  },
  {
    rule: 'vlan without parentNicName',
    body: nics(nic(), nic({ vlan: 2 })),
    message: invalid(`${P}.networkInterfaces[1].parentNicName`, '', 'A dynamic network interface requires the name of its parent interface.'),
  },
  {
    rule: 'parentNicName not nicN',
    body: nics(nic(), nic({ vlan: 255, parentNicName: 'eth0' })),
    message: invalid(`${P}.networkInterfaces[1].parentNicName`, 'eth0', 'Must be the name of a network interface, nic0 to nic7.'),
  },
  {
    rule: 'networkAttachment malformed',
    body: nics(nic({ networkAttachment: 'attachments/a' })),
    message: invalid(`${NIC0}.networkAttachment`, 'attachments/a', 'Must be of the form projects/<project_number>/regions/<region>/networkAttachments/<name>.'),
  },
  {
    rule: 'more than 8 network interfaces',
    body: nics(...Array.from({ length: 9 }, () => nic())),
    message: invalid(`${P}.networkInterfaces`, '', 'At most 8 network interfaces are supported.'),
  },
  // disks: sources of a new boot disk
  {
    rule: 'boot disk without any source',
    body: disks({ boot: true }),
    reason: 'required',
    message: `Required field '${DISK0}.initializeParams' not specified`,
  },
  {
    rule: 'boot disk with neither image nor snapshot',
    body: disks(bootDisk({}, { diskSizeGb: '20' })),
    message: invalid(`${DISK0}.initializeParams`, '', BOOT_SOURCE_RULE),
  },
  {
    rule: 'boot disk with image and snapshot',
    body: disks(bootDisk({}, { sourceImage: DEBIAN, sourceSnapshot: 'global/snapshots/s1' })),
    message: invalid(`${DISK0}.initializeParams`, '', BOOT_SOURCE_RULE),
  },
  {
    rule: 'boot disk with source and initializeParams',
    body: disks(bootDisk({ source: 'disk-1' })),
    message: invalid(`${DISK0}.initializeParams`, '', 'Cannot specify both source and initializeParams for a disk.'),
  },
  {
    rule: 'data disk with image and snapshot',
    body: dataDisk({ sourceImage: DEBIAN, sourceSnapshot: 'global/snapshots/s1' }),
    message: invalid(`${DISK1}.initializeParams`, '', 'Only one of sourceImage and sourceSnapshot may be specified.'),
  },
  {
    rule: 'persistent data disk without source',
    body: disks(bootDisk(), { type: 'PERSISTENT' }),
    reason: 'required',
    message: `Required field '${DISK1}.initializeParams' not specified`,
  },
  {
    rule: 'boot disk not first',
    body: disks({ initializeParams: { diskSizeGb: '100' } }, bootDisk()),
    message: invalid(`${DISK1}.boot`, 'true', 'Boot disk must be the first disk attached to the instance.'),
  },
  { rule: 'two boot disks', body: disks(bootDisk(), bootDisk()), message: invalid(`${P}.disks`, '', 'Only one boot disk may be specified.') },
  {
    rule: 'sourceImage malformed',
    body: disks(bootDisk({}, { sourceImage: 'debian-12' })),
    message: invalid(`${DISK0}.initializeParams.sourceImage`, 'debian-12', 'The URL is malformed.'),
  },
  {
    rule: 'sourceImage not found',
    body: disks(bootDisk({}, { sourceImage: 'projects/debian-cloud/global/images/family/debian-99' })),
    message: invalid(
      `${DISK0}.initializeParams.sourceImage`,
      'projects/debian-cloud/global/images/family/debian-99',
      'The referenced image resource cannot be found.',
    ),
  },
  {
    rule: 'sourceSnapshot malformed',
    body: disks(bootDisk({}, { sourceSnapshot: 'snap-1' })),
    message: invalid(`${DISK0}.initializeParams.sourceSnapshot`, 'snap-1', 'The URL is malformed. Expected global/snapshots/<snapshot>.'),
  },
  {
    rule: 'deviceName not RFC 1035',
    body: disks(bootDisk({ deviceName: 'Disk_1' })),
    message: invalid(`${DISK0}.deviceName`, 'Disk_1', `Must be a match of regex '${NAME_REGEX}'`),
  },
  {
    rule: 'duplicate deviceName',
    body: disks(bootDisk({ deviceName: 'persistent-disk-1' }), { initializeParams: { diskSizeGb: '100' } }),
    message: invalid(`${DISK1}.deviceName`, 'persistent-disk-1', 'Device names must be unique within an instance.'),
  },
  // disks: sizes
  {
    rule: 'initializeParams.diskSizeGb below 10',
    body: dataDisk({ diskSizeGb: '9' }),
    message: invalid(`${DISK1}.initializeParams.diskSizeGb`, '9', 'Disk size must be at least 10 GB.'),
  },
  {
    rule: 'disk.diskSizeGb below 10',
    body: disks(bootDisk(), { source: 'disk-1', diskSizeGb: '5' }),
    message: invalid(`${DISK1}.diskSizeGb`, '5', 'Disk size must be at least 10 GB.'),
  },
  {
    rule: 'disk smaller than its image',
    body: disks(bootDisk({}, { sourceImage: CENTOS, diskSizeGb: '15' })),
    message: invalid(`${DISK0}.initializeParams.diskSizeGb`, '15', 'Requested disk size cannot be smaller than the image size (20 GB)'),
  },
  // disks: provisioned IOPS and regional disks
  {
    rule: 'provisionedIops below 10,000',
    body: dataDisk({ diskType: 'pd-extreme', provisionedIops: '9999' }),
    message: invalid(`${DISK1}.initializeParams.provisionedIops`, '9999', 'Provisioned IOPS must be between 10000 and 120000.'),
  },
  {
    rule: 'provisionedIops above 120,000',
    body: dataDisk({ diskType: 'pd-extreme', provisionedIops: '120001' }),
    message: invalid(`${DISK1}.initializeParams.provisionedIops`, '120001', 'Provisioned IOPS must be between 10000 and 120000.'),
  },
  {
    rule: 'provisionedIops on pd-standard',
    body: dataDisk({ diskType: 'pd-standard', provisionedIops: '20000' }),
    message: invalid(`${DISK1}.initializeParams.provisionedIops`, '20000', "Provisioned IOPS cannot be set for disk type 'pd-standard'."),
  },
  {
    rule: 'one replica zone',
    body: dataDisk({ replicaZones: ['zones/us-central1-a'] }),
    message: invalid(`${DISK1}.initializeParams.replicaZones`, '', 'Regional disks require exactly 2 replica zones.'),
  },
  {
    rule: 'three replica zones',
    body: dataDisk({ replicaZones: ['zones/us-central1-a', 'zones/us-central1-b', 'zones/us-central1-c'] }),
    message: invalid(`${DISK1}.initializeParams.replicaZones`, '', 'Regional disks require exactly 2 replica zones.'),
  },
  {
    rule: 'unknown replica zone',
    body: dataDisk({ replicaZones: ['zones/us-central1-a', 'zones/us-central1-z'] }),
    message: invalid(`${DISK1}.initializeParams.replicaZones[1]`, 'zones/us-central1-z', 'The referenced zone resource cannot be found.'),
  },
  {
    rule: 'the same replica zone twice',
    body: dataDisk({ replicaZones: ['zones/us-central1-a', 'projects/p/zones/us-central1-a'] }),
    message: invalid(`${DISK1}.initializeParams.replicaZones`, '', 'The two replica zones must be different.'),
  },
  {
    rule: 'replica zones in two regions',
    body: dataDisk({ replicaZones: ['zones/us-central1-a', 'zones/us-east1-b'] }),
    message: invalid(`${DISK1}.initializeParams.replicaZones`, '', 'Both replica zones must be in the same region.'),
  },
  // disks: encryption keys
  {
    rule: 'rawKey and kmsKeyName together',
    body: disks(bootDisk({ diskEncryptionKey: { rawKey: KEY_32, kmsKeyName: KMS_KEY } })),
    message: invalid(`${DISK0}.diskEncryptionKey`, '', 'Only one of rawKey, rsaEncryptedKey or kmsKeyName may be specified; found rawKey and kmsKeyName.'),
  },
  {
    rule: 'rawKey and rsaEncryptedKey together',
    body: disks(bootDisk({ diskEncryptionKey: { rawKey: KEY_32, rsaEncryptedKey: Buffer.alloc(256).toString('base64') } })),
    message: invalid(`${DISK0}.diskEncryptionKey`, '', 'Only one of rawKey, rsaEncryptedKey or kmsKeyName may be specified; found rawKey and rsaEncryptedKey.'),
  },
  {
    rule: 'sourceImageEncryptionKey with two keys',
    body: disks(
      bootDisk({}, { sourceImage: DEBIAN, sourceImageEncryptionKey: { rsaEncryptedKey: Buffer.alloc(256).toString('base64'), kmsKeyName: KMS_KEY } }),
    ),
    message: invalid(
      `${DISK0}.initializeParams.sourceImageEncryptionKey`,
      '',
      'Only one of rawKey, rsaEncryptedKey or kmsKeyName may be specified; found rsaEncryptedKey and kmsKeyName.',
    ),
  },
  ...[Buffer.alloc(16, 1).toString('base64'), Buffer.alloc(33, 1).toString('base64'), 'not base64!'].map(
    (rawKey): Case => ({
      rule: `rawKey ${JSON.stringify(rawKey)}`,
      body: disks(bootDisk({ diskEncryptionKey: { rawKey } })),
      message: invalid(`${DISK0}.diskEncryptionKey.rawKey`, rawKey, 'The raw key must be a 256-bit key encoded in RFC 4648 base64.'),
    }),
  ),
  {
    rule: 'rsaEncryptedKey not 2048 bits',
    body: disks(bootDisk({ diskEncryptionKey: { rsaEncryptedKey: KEY_32 } })),
    message: invalid(`${DISK0}.diskEncryptionKey.rsaEncryptedKey`, KEY_32, 'The RSA-wrapped key must be 2048 bits encoded in RFC 4648 base64.'),
  },
  {
    rule: 'kmsKeyServiceAccount without kmsKeyName',
    body: disks(bootDisk({ diskEncryptionKey: { rawKey: KEY_32, kmsKeyServiceAccount: 'sa@p.iam.gserviceaccount.com' } })),
    message: invalid(
      `${DISK0}.diskEncryptionKey.kmsKeyServiceAccount`,
      'sa@p.iam.gserviceaccount.com',
      'kmsKeyServiceAccount can only be used with kmsKeyName.',
    ),
  },
  {
    rule: 'kmsKeyName malformed',
    body: disks(bootDisk({ diskEncryptionKey: { kmsKeyName: 'my-key' } })),
    message: invalid(`${DISK0}.diskEncryptionKey.kmsKeyName`, 'my-key', 'Must be of the form projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>.'),
  },
  // disks: disk types and local SSDs
  {
    rule: 'diskType as a URL',
    body: dataDisk({ diskType: 'zones/us-central1-a/diskTypes/pd-ssd' }),
    message: invalid(`${DISK1}.initializeParams.diskType`, 'zones/us-central1-a/diskTypes/pd-ssd', 'Instance templates take a disk type name, not a URL.'),
  },
  {
    rule: 'unknown diskType',
    body: dataDisk({ diskType: 'pd-foo' }),
    message: invalid(`${DISK1}.initializeParams.diskType`, 'pd-foo', "Disk type 'pd-foo' does not exist."),
  },
  {
    rule: 'local-ssd on a persistent disk',
    body: dataDisk({ diskType: 'local-ssd' }),
    message: invalid(`${DISK1}.initializeParams.diskType`, 'local-ssd', 'The local-ssd disk type requires a SCRATCH disk.'),
  },
  {
    rule: 'SCRATCH boot disk',
    body: disks({ type: 'SCRATCH', boot: true }),
    message: invalid(`${DISK0}.type`, 'SCRATCH', 'A local SSD (SCRATCH) disk cannot be a boot disk.'),
  },
  {
    rule: 'SCRATCH disk with a source',
    body: disks(bootDisk(), { type: 'SCRATCH', source: 'disk-1' }),
    message: invalid(`${DISK1}.source`, 'disk-1', 'A local SSD (SCRATCH) disk cannot have a source.'),
  },
  {
    rule: 'SCRATCH disk with pd-ssd',
    body: disks(bootDisk(), { type: 'SCRATCH', initializeParams: { diskType: 'pd-ssd' } }),
    message: invalid(`${DISK1}.initializeParams.diskType`, 'pd-ssd', 'A SCRATCH disk must use the local-ssd disk type.'),
  },
  // scheduling
  {
    rule: 'preemptible with automaticRestart',
    body: scheduling({ preemptible: true, automaticRestart: true }),
    message: invalid(`${P}.scheduling.automaticRestart`, 'true', 'Scheduling must have preemptible be false when AutomaticRestart is true.'),
  },
  {
    rule: 'Spot with automaticRestart',
    body: scheduling({ provisioningModel: 'SPOT', automaticRestart: true }),
    message: invalid(`${P}.scheduling.automaticRestart`, 'true', 'Scheduling must have preemptible be false when AutomaticRestart is true.'),
  },
  {
    rule: 'preemptible with MIGRATE',
    body: scheduling({ preemptible: true, onHostMaintenance: 'MIGRATE' }),
    message: invalid(`${P}.scheduling.onHostMaintenance`, 'MIGRATE', "Scheduling must have preemptible be false when OnHostMaintenance isn't TERMINATE."),
  },
  {
    rule: 'accelerators with MIGRATE',
    body: scheduling({ onHostMaintenance: 'MIGRATE' }, { guestAccelerators: [{ acceleratorType: 'nvidia-tesla-t4', acceleratorCount: 1 }] }),
    message: invalid(`${P}.scheduling.onHostMaintenance`, 'MIGRATE', 'Instances with guest accelerators do not support live migration.'),
  },
  {
    rule: 'maxRunDuration with terminationTime',
    body: scheduling({ provisioningModel: 'SPOT', maxRunDuration: { seconds: '3600' }, terminationTime: '2030-01-01T00:00:00Z' }),
    message: invalid(`${P}.scheduling`, '', 'Only one of maxRunDuration and terminationTime may be specified.'),
  },
  {
    rule: 'terminationTime not a timestamp',
    body: scheduling({ terminationTime: 'tomorrow' }),
    message: invalid(`${P}.scheduling.terminationTime`, 'tomorrow', 'Must be an RFC 3339 timestamp.'),
  },
  {
    rule: 'instanceTerminationAction on a standard VM',
    body: scheduling({ instanceTerminationAction: 'STOP' }),
    message: invalid(`${P}.scheduling.instanceTerminationAction`, 'STOP', 'instanceTerminationAction can only be set for Spot VMs or VMs with a run duration.'),
  },
  {
    rule: 'hostErrorTimeoutSeconds below 90',
    body: scheduling({ hostErrorTimeoutSeconds: 89 }),
    message: invalid(`${P}.scheduling.hostErrorTimeoutSeconds`, '89', 'Must be between 90 and 330 seconds.'),
  },
  {
    rule: 'hostErrorTimeoutSeconds above 330',
    body: scheduling({ hostErrorTimeoutSeconds: 331 }),
    message: invalid(`${P}.scheduling.hostErrorTimeoutSeconds`, '331', 'Must be between 90 and 330 seconds.'),
  },
  { rule: 'minNodeCpus negative', body: scheduling({ minNodeCpus: -1 }), message: invalid(`${P}.scheduling.minNodeCpus`, '-1', 'Must be non-negative.') },
  {
    rule: 'node affinity without key',
    body: scheduling({ nodeAffinities: [{ operator: 'IN', values: ['a'] }] }),
    message: invalid(`${P}.scheduling.nodeAffinities[0].key`, '', 'A node affinity needs a key.'),
  },
  {
    rule: 'maxRunDuration nanos too large',
    body: scheduling({ provisioningModel: 'SPOT', maxRunDuration: { seconds: '60', nanos: 1_000_000_000 } }),
    message: invalid(`${P}.scheduling.maxRunDuration.nanos`, '1000000000', 'Must be from 0 to 999,999,999.'),
  },
  // service accounts, accelerators, reservations, machine features, policies
  {
    rule: 'two service accounts',
    body: body({ serviceAccounts: [{ email: 'default' }, { email: 'sa@p.iam.gserviceaccount.com' }] }),
    message: invalid(`${P}.serviceAccounts`, '', 'At most one service account can be specified.'),
  },
  {
    rule: 'service account without email',
    body: body({ serviceAccounts: [{ scopes: ['x'] }] }),
    reason: 'required',
    message: `Required field '${P}.serviceAccounts[0].email' not specified`,
  },
  {
    rule: 'service account email not an email',
    body: body({ serviceAccounts: [{ email: 'robot' }] }),
    message: invalid(`${P}.serviceAccounts[0].email`, 'robot', 'The service account email is not valid.'),
  },
  {
    rule: 'accelerator without type',
    body: body({ guestAccelerators: [{ acceleratorCount: 1 }] }),
    reason: 'required',
    message: `Required field '${P}.guestAccelerators[0].acceleratorType' not specified`,
  },
  {
    rule: 'accelerator type as a URL',
    body: body({ guestAccelerators: [{ acceleratorType: 'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4', acceleratorCount: 1 }] }),
    message: invalid(
      `${P}.guestAccelerators[0].acceleratorType`,
      'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4',
      'Instance templates take an accelerator type name, not a URL.',
    ),
  },
  {
    rule: 'accelerator count zero',
    body: body({ guestAccelerators: [{ acceleratorType: 'nvidia-tesla-t4' }] }),
    message: invalid(`${P}.guestAccelerators[0].acceleratorCount`, '0', 'Accelerator count must be at least 1.'),
  },
  {
    rule: 'SPECIFIC_RESERVATION without key',
    body: body({ reservationAffinity: { consumeReservationType: 'SPECIFIC_RESERVATION', values: ['r1'] } }),
    message: invalid(`${P}.reservationAffinity`, '', 'SPECIFIC_RESERVATION requires a key and at least one value.'),
  },
  {
    rule: 'SPECIFIC_RESERVATION without values',
    body: body({ reservationAffinity: { consumeReservationType: 'SPECIFIC_RESERVATION', key: 'compute.googleapis.com/reservation-name' } }),
    message: invalid(`${P}.reservationAffinity`, '', 'SPECIFIC_RESERVATION requires a key and at least one value.'),
  },
  {
    rule: 'ANY_RESERVATION with a key',
    body: body({ reservationAffinity: { consumeReservationType: 'ANY_RESERVATION', key: 'compute.googleapis.com/reservation-name', values: ['r1'] } }),
    message: invalid(`${P}.reservationAffinity`, '', 'key and values can only be set for SPECIFIC_RESERVATION.'),
  },
  {
    rule: 'threadsPerCore 3',
    body: body({ advancedMachineFeatures: { threadsPerCore: 3 } }),
    message: invalid(`${P}.advancedMachineFeatures.threadsPerCore`, '3', 'Threads per core must be 1 or 2.'),
  },
  {
    rule: 'threadsPerCore 0',
    body: body({ advancedMachineFeatures: { threadsPerCore: 0 } }),
    message: invalid(`${P}.advancedMachineFeatures.threadsPerCore`, '0', 'Threads per core must be 1 or 2.'),
  },
  {
    rule: 'visibleCoreCount 0',
    body: body({ advancedMachineFeatures: { visibleCoreCount: 0 } }),
    message: invalid(`${P}.advancedMachineFeatures.visibleCoreCount`, '0', 'Visible core count must be at least 1.'),
  },
  {
    rule: 'resource policy as a URL',
    body: body({ resourcePolicies: ['regions/us-central1/resourcePolicies/daily'] }),
    message: invalid(`${P}.resourcePolicies[0]`, 'regions/us-central1/resourcePolicies/daily', 'Instance templates take a resource policy name, not a URL.'),
  },
  // source instance
  {
    rule: 'sourceInstanceParams without sourceInstance',
    body: { name: 'bad', properties: props(), sourceInstanceParams: { diskConfigs: [] } },
    message: invalid('resource.sourceInstanceParams', '', 'sourceInstanceParams can only be used together with sourceInstance.'),
  },
  {
    rule: 'sourceInstance not found',
    body: { name: 'bad', properties: props(), sourceInstance: 'zones/us-central1-a/instances/vm-1' },
    message: invalid('resource.sourceInstance', 'zones/us-central1-a/instances/vm-1', 'The referenced source instance resource cannot be found.'),
  },
  {
    rule: 'sourceInstance malformed',
    body: { name: 'bad', properties: props(), sourceInstance: 'vm-1' },
    message: invalid('resource.sourceInstance', 'vm-1', 'The URL is malformed.'),
  },
];

describe('instanceTemplates.insert rejects every rule violation with the exact 400', () => {
  for (const row of CASES) {
    test(row.rule, async () => {
      const before = await state();
      const reply = await call('POST', INSERT, row.body);
      assertError(reply, row.status ?? 400, row.reason ?? 'invalid', row.message);
      assert.deepEqual(await state(), before);
      assert.equal((await call('GET', `${INSERT}/bad`)).status, 404);
    });
  }
});

describe('instanceTemplates.insert conflicts', () => {
  test('an existing name is a synchronous 409 and creates no Operation', async () => {
    assert.equal((await call('POST', INSERT, { name: 'taken', properties: props() })).body['status'], 'DONE');
    const before = await state();
    const reply = await call('POST', INSERT, { name: 'taken', properties: props({ description: 'other' }) });
    assertError(reply, 409, 'alreadyExists', "The resource 'projects/p/global/instanceTemplates/taken' already exists");
    assert.deepEqual(await state(), before);
    assert.equal((await call('GET', `${INSERT}/taken`)).body['properties']['description'], undefined);
  });

  test('the same name in another project or region is no conflict', async () => {
    assert.equal((await call('POST', INSERT, { name: 'shared', properties: props() })).status, 200);
    assert.equal((await call('POST', '/compute/v1/projects/q/global/instanceTemplates', { name: 'shared', properties: props() })).status, 200);
    assert.equal((await call('POST', '/compute/v1/projects/p/regions/us-central1/instanceTemplates', { name: 'shared', properties: props() })).status, 200);
  });
});

describe('instanceTemplates.insert fills in server output', () => {
  const HOST = { ...ADMIN, host: 'fogbank.test:8780' };
  const BASE = 'http://fogbank.test:8780/compute/v1/';

  async function insertAndGet(
    template: Record<string, unknown>,
    headers: Record<string, string> = HOST,
    prefix = '/compute/v1',
  ): Promise<{ op: LooseJson; template: LooseJson }> {
    const op = await call('POST', `${prefix}/projects/p/global/instanceTemplates`, template, headers);
    assert.equal(op.status, 200, JSON.stringify(op.body));
    assert.equal(op.body['status'], 'DONE');
    assert.equal(op.body['error'], undefined);
    const got = await call('GET', `${prefix}/projects/p/global/instanceTemplates/${String(template['name'])}`, undefined, headers);
    assert.equal(got.status, 200);
    return { op: op.body, template: got.body };
  }

  test('the body gcloud sends becomes the template real servers describe', async () => {
    const serviceAccounts = [
      { email: 'default', scopes: ['https://www.googleapis.com/auth/devstorage.read_only', 'https://www.googleapis.com/auth/logging.write'] },
    ];
    const sourceImage = 'http://127.0.0.1:8089/compute/v1/projects/debian-cloud/global/images/family/debian-12';
    const { op, template } = await insertAndGet({
      name: 'gcloud-style',
      properties: {
        canIpForward: false,
        disks: [{ autoDelete: true, boot: true, initializeParams: { sourceImage }, mode: 'READ_WRITE', type: 'PERSISTENT' }],
        machineType: 'e2-small',
        metadata: {},
        networkInterfaces: [
          { accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }], network: 'http://127.0.0.1:8089/compute/v1/projects/p/global/networks/default' },
        ],
        scheduling: { automaticRestart: true },
        serviceAccounts,
      },
    });
    const fingerprint = template['properties']['metadata']['fingerprint'] as string;
    assert.match(fingerprint, /^[A-Za-z0-9+/]{11}=$/);
    assert.equal(Buffer.from(fingerprint, 'base64').length, 8);
    assert.match(template['id'], /^[1-9]\d*$/);
    assert.ok(BigInt(template['id']) < 1n << 64n);
    assert.deepEqual(template, {
      kind: 'compute#instanceTemplate',
      id: template['id'],
      creationTimestamp: '2024-12-31T16:00:00.000-08:00',
      name: 'gcloud-style',
      description: '',
      properties: {
        canIpForward: false,
        disks: [
          {
            kind: 'compute#attachedDisk',
            autoDelete: true,
            boot: true,
            deviceName: 'persistent-disk-0',
            index: 0,
            initializeParams: { sourceImage, diskSizeGb: '10' },
            mode: 'READ_WRITE',
            type: 'PERSISTENT',
          },
        ],
        machineType: 'e2-small',
        metadata: { kind: 'compute#metadata', fingerprint },
        networkInterfaces: [
          {
            kind: 'compute#networkInterface',
            accessConfigs: [{ kind: 'compute#accessConfig', name: 'external-nat', type: 'ONE_TO_ONE_NAT', networkTier: 'PREMIUM' }],
            name: 'nic0',
            network: `${BASE}projects/p/global/networks/default`,
          },
        ],
        scheduling: { automaticRestart: true, onHostMaintenance: 'MIGRATE', preemptible: false, provisioningModel: 'STANDARD' },
        serviceAccounts,
      },
      selfLink: `${BASE}projects/p/global/instanceTemplates/gcloud-style`,
      selfLinkWithId: `${BASE}projects/p/global/instanceTemplates/${template['id']}`,
    });
    assert.equal(op['kind'], 'compute#operation');
    assert.equal(op['targetLink'], `${BASE}projects/p/global/instanceTemplates/gcloud-style`);
    assert.equal(op['targetId'], template['id']);
    assert.equal(op['operationType'], 'insert');
    assert.equal(op['user'], 'admin@fogbank.local');
  });

  test('a 63-character name is accepted and timestamps are RFC 3339 at the clock', async () => {
    clock.advance(1_234);
    const name = `a${'b'.repeat(61)}c`;
    const { template } = await insertAndGet({ name, properties: props() });
    assert.equal(template['name'], name);
    assert.equal(template['creationTimestamp'], '2024-12-31T16:00:01.234-08:00');
    assert.match(template['creationTimestamp'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+]\d\d:\d\d$/);
  });

  test('links follow the address the client used, with or without /compute/v1', async () => {
    const headers = { ...ADMIN, host: 'other.test' };
    const { op, template } = await insertAndGet({ name: 'no-prefix', properties: props({ networkInterfaces: [{}] }) }, headers, '');
    assert.equal(template['selfLink'], 'http://other.test/projects/p/global/instanceTemplates/no-prefix');
    assert.equal(template['properties']['networkInterfaces'][0]['network'], 'http://other.test/projects/p/global/networks/default');
    assert.match(op['selfLink'], /^http:\/\/other\.test\/projects\/p\/global\/operations\/operation-/);
    const again = await call('GET', `${INSERT}/no-prefix`, undefined, HOST);
    assert.equal(again.body['selfLink'], `${BASE}projects/p/global/instanceTemplates/no-prefix`);
  });

  test('network interfaces: names nic0…, the default network, access config defaults, subnetwork as a URL', async () => {
    const { template } = await insertAndGet({
      name: 'nic-defaults',
      properties: props({
        networkInterfaces: [
          { accessConfigs: [{}] },
          { subnetwork: 'regions/us-east1/subnetworks/default', stackType: 'IPV4_IPV6', ipv6AccessConfigs: [{}] },
          {
            network: 'https://www.googleapis.com/compute/v1/projects/p/global/networks/default',
            accessConfigs: [{ name: 'mine', networkTier: 'STANDARD', natIP: '203.0.113.7' }],
          },
        ],
      }),
    });
    assert.deepEqual(template['properties']['networkInterfaces'], [
      {
        kind: 'compute#networkInterface',
        name: 'nic0',
        network: `${BASE}projects/p/global/networks/default`,
        accessConfigs: [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }],
      },
      {
        kind: 'compute#networkInterface',
        name: 'nic1',
        network: `${BASE}projects/p/global/networks/default`,
        subnetwork: `${BASE}projects/p/regions/us-east1/subnetworks/default`,
        stackType: 'IPV4_IPV6',
        ipv6AccessConfigs: [{ kind: 'compute#accessConfig', type: 'DIRECT_IPV6', name: 'External IPv6', networkTier: 'PREMIUM' }],
      },
      {
        kind: 'compute#networkInterface',
        name: 'nic2',
        network: `${BASE}projects/p/global/networks/default`,
        accessConfigs: [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'mine', networkTier: 'STANDARD', natIP: '203.0.113.7' }],
      },
    ]);
  });

  test('disks: index, default device names, default sizes (image size; 500 for a blank disk)', async () => {
    const { template } = await insertAndGet({
      name: 'disk-defaults',
      properties: props({
        disks: [
          { boot: true, autoDelete: true, initializeParams: { sourceImage: CENTOS } },
          { initializeParams: { diskType: 'pd-ssd' } },
          { initializeParams: { sourceSnapshot: 'global/snapshots/s1' } },
          { source: 'data-disk', deviceName: 'data', mode: 'READ_ONLY' },
          {
            initializeParams: {
              sourceImage: DEBIAN,
              diskSizeGb: '10',
              diskType: 'hyperdisk-balanced',
              provisionedIops: '10000',
              replicaZones: ['zones/us-central1-a', 'zones/us-central1-f'],
            },
          },
        ],
      }),
    });
    assert.deepEqual(template['properties']['disks'], [
      {
        kind: 'compute#attachedDisk',
        boot: true,
        autoDelete: true,
        type: 'PERSISTENT',
        mode: 'READ_WRITE',
        index: 0,
        deviceName: 'persistent-disk-0',
        initializeParams: { sourceImage: CENTOS, diskSizeGb: '20' },
      },
      {
        kind: 'compute#attachedDisk',
        boot: false,
        autoDelete: false,
        type: 'PERSISTENT',
        mode: 'READ_WRITE',
        index: 1,
        deviceName: 'persistent-disk-1',
        initializeParams: { diskType: 'pd-ssd', diskSizeGb: '500' },
      },
      {
        kind: 'compute#attachedDisk',
        boot: false,
        autoDelete: false,
        type: 'PERSISTENT',
        mode: 'READ_WRITE',
        index: 2,
        deviceName: 'persistent-disk-2',
        initializeParams: { sourceSnapshot: 'global/snapshots/s1' },
      },
      {
        kind: 'compute#attachedDisk',
        boot: false,
        autoDelete: false,
        type: 'PERSISTENT',
        mode: 'READ_ONLY',
        index: 3,
        deviceName: 'data',
        source: 'data-disk',
      },
      {
        kind: 'compute#attachedDisk',
        boot: false,
        autoDelete: false,
        type: 'PERSISTENT',
        mode: 'READ_WRITE',
        index: 4,
        deviceName: 'persistent-disk-4',
        initializeParams: {
          sourceImage: DEBIAN,
          diskSizeGb: '10',
          diskType: 'hyperdisk-balanced',
          provisionedIops: '10000',
          replicaZones: ['zones/us-central1-a', 'zones/us-central1-f'],
        },
      },
    ]);
  });

  test('the boundaries of the size and IOPS rules are accepted', async () => {
    const { template } = await insertAndGet({
      name: 'boundaries',
      properties: props({
        disks: [
          { boot: true, initializeParams: { sourceImage: CENTOS, diskSizeGb: '20' } },
          { initializeParams: { diskType: 'pd-extreme', diskSizeGb: '10', provisionedIops: '120000' } },
        ],
      }),
    });
    assert.equal(template['properties']['disks'][0]['initializeParams']['diskSizeGb'], '20');
    assert.equal(template['properties']['disks'][1]['initializeParams']['provisionedIops'], '120000');
  });

  test('a raw key gets its sha256; tags get a fingerprint and lose duplicates; metadata keeps its items', async () => {
    const { template } = await insertAndGet({
      name: 'keys-and-tags',
      properties: props({
        tags: { items: ['http-server', 'ssh', 'http-server'] },
        metadata: { items: [{ key: 'startup-script', value: 'echo hi' }, { key: 'empty' }] },
        disks: [{ boot: true, initializeParams: { sourceImage: DEBIAN }, diskEncryptionKey: { rawKey: KEY_32 } }],
      }),
    });
    const properties = template['properties'];
    assert.deepEqual(properties['disks'][0]['diskEncryptionKey'], {
      rawKey: KEY_32,
      sha256: createHash('sha256').update(Buffer.alloc(32, 7)).digest('base64'),
    });
    assert.deepEqual(properties['tags']['items'], ['http-server', 'ssh']);
    assert.match(properties['tags']['fingerprint'], /^[A-Za-z0-9+/]{11}=$/);
    assert.deepEqual(properties['metadata']['items'], [
      { key: 'startup-script', value: 'echo hi' },
      { key: 'empty', value: '' },
    ]);
  });

  test('scheduling defaults depend on preemptible, Spot and accelerators', async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['sched-standard', {}, { onHostMaintenance: 'MIGRATE', automaticRestart: true, preemptible: false, provisioningModel: 'STANDARD' }],
      [
        'sched-preemptible',
        { scheduling: { preemptible: true } },
        { onHostMaintenance: 'TERMINATE', automaticRestart: false, preemptible: true, provisioningModel: 'STANDARD' },
      ],
      [
        'sched-spot',
        { scheduling: { provisioningModel: 'SPOT', instanceTerminationAction: 'DELETE' } },
        { onHostMaintenance: 'TERMINATE', automaticRestart: false, preemptible: false, provisioningModel: 'SPOT', instanceTerminationAction: 'DELETE' },
      ],
      [
        'sched-gpu',
        { guestAccelerators: [{ acceleratorType: 'nvidia-tesla-t4', acceleratorCount: 1 }] },
        { onHostMaintenance: 'TERMINATE', automaticRestart: true, preemptible: false, provisioningModel: 'STANDARD' },
      ],
    ];
    for (const [name, extra, expected] of cases) {
      const { template } = await insertAndGet({ name, properties: props(extra) });
      assert.deepEqual(template['properties']['scheduling'], expected, name);
    }
  });

  test('output-only input fields are ignored and replaced', async () => {
    const { template } = await insertAndGet({
      kind: 'compute#somethingElse',
      id: '42',
      creationTimestamp: '1999-01-01T00:00:00.000-00:00',
      selfLink: 'http://elsewhere/x',
      selfLinkWithId: 'http://elsewhere/y',
      name: 'echoed',
      properties: props({
        metadata: { kind: 'compute#nothing', fingerprint: 'c3RhbGU=' },
        tags: { items: ['web'], fingerprint: 'c3RhbGU=' },
        networkInterfaces: [{ kind: 'x', name: 'nic7', fingerprint: 'abc=', ipv6AccessType: 'EXTERNAL', accessConfigs: [{ kind: 'y' }] }],
        disks: [
          {
            kind: 'z',
            index: 5,
            savedState: 'PRESERVED',
            boot: true,
            initializeParams: { sourceImage: DEBIAN },
            diskEncryptionKey: { rawKey: KEY_32, sha256: 'c3RhbGU=' },
          },
        ],
      }),
    });
    assert.equal(template['kind'], 'compute#instanceTemplate');
    assert.notEqual(template['id'], '42');
    assert.match(template['id'], /^[1-9]\d*$/);
    assert.equal(template['creationTimestamp'], '2024-12-31T16:00:01.234-08:00');
    assert.equal(template['selfLink'], `${BASE}projects/p/global/instanceTemplates/echoed`);
    assert.equal(template['selfLinkWithId'], `${BASE}projects/p/global/instanceTemplates/${template['id']}`);
    const properties = template['properties'];
    assert.equal(properties['metadata']['kind'], 'compute#metadata');
    assert.notEqual(properties['metadata']['fingerprint'], 'c3RhbGU=');
    assert.notEqual(properties['tags']['fingerprint'], 'c3RhbGU=');
    assert.deepEqual(properties['networkInterfaces'], [
      {
        kind: 'compute#networkInterface',
        name: 'nic0',
        network: `${BASE}projects/p/global/networks/default`,
        accessConfigs: [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }],
      },
    ]);
    const disk = properties['disks'][0];
    assert.equal(disk['kind'], 'compute#attachedDisk');
    assert.equal(disk['index'], 0);
    assert.equal(disk['savedState'], undefined);
    assert.equal(disk['diskEncryptionKey']['sha256'], createHash('sha256').update(Buffer.alloc(32, 7)).digest('base64'));
  });

  test('a regional template carries its region', async () => {
    const op = await call('POST', '/compute/v1/projects/p/regions/europe-west1/instanceTemplates', { name: 'regional', properties: props() }, HOST);
    assert.equal(op.body['region'], `${BASE}projects/p/regions/europe-west1`);
    const got = await call('GET', '/compute/v1/projects/p/regions/europe-west1/instanceTemplates/regional', undefined, HOST);
    assert.equal(got.body['region'], `${BASE}projects/p/regions/europe-west1`);
    assert.equal(got.body['selfLink'], `${BASE}projects/p/regions/europe-west1/instanceTemplates/regional`);
  });
});
