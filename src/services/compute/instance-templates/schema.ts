import { PBool, PEnum, PInt32, PInt64, PMap, PMessage, PRepeated, PString, PUint64, type Decoded } from '../shared/proto-schema.ts';

/**
 * The InstanceTemplate message of compute v1, as the insert method accepts it. Output-only
 * fields are accepted (clients echo them back) and replaced by the server.
 */

const FileContentBuffer = PMessage('FileContentBuffer', { content: PString(), fileType: PEnum('FileContentBuffer.FileType', ['BIN', 'UNDEFINED', 'X509']) });

const CustomerEncryptionKey = PMessage('CustomerEncryptionKey', {
  rawKey: PString(),
  rsaEncryptedKey: PString(),
  kmsKeyName: PString(),
  sha256: PString(),
  kmsKeyServiceAccount: PString(),
});

const AccessConfig = PMessage('AccessConfig', {
  kind: PString(),
  type: PEnum('AccessConfig.Type', ['DIRECT_IPV6', 'ONE_TO_ONE_NAT']),
  name: PString(),
  natIP: PString(),
  externalIpv6: PString(),
  externalIpv6PrefixLength: PInt32(),
  setPublicPtr: PBool(),
  publicPtrDomainName: PString(),
  networkTier: PEnum('AccessConfig.NetworkTier', ['FIXED_STANDARD', 'PREMIUM', 'STANDARD', 'STANDARD_OVERRIDES_FIXED_STANDARD']),
  securityPolicy: PString(),
});

const AliasIpRange = PMessage('AliasIpRange', { ipCidrRange: PString(), subnetworkRangeName: PString() });

const NetworkInterface = PMessage('NetworkInterface', {
  kind: PString(),
  network: PString(),
  subnetwork: PString(),
  networkIP: PString(),
  ipv6Address: PString(),
  internalIpv6PrefixLength: PInt32(),
  name: PString(),
  accessConfigs: PRepeated(AccessConfig),
  ipv6AccessConfigs: PRepeated(AccessConfig),
  aliasIpRanges: PRepeated(AliasIpRange),
  fingerprint: PString(),
  stackType: PEnum('NetworkInterface.StackType', ['IPV4_IPV6', 'IPV4_ONLY', 'IPV6_ONLY']),
  ipv6AccessType: PEnum('NetworkInterface.Ipv6AccessType', ['EXTERNAL', 'INTERNAL']),
  queueCount: PInt32(),
  nicType: PEnum('NetworkInterface.NicType', ['GVNIC', 'IDPF', 'IRDMA', 'MRDMA', 'UNSPECIFIED_NIC_TYPE', 'VIRTIO_NET']),
  networkAttachment: PString(),
  parentNicName: PString(),
  vlan: PInt32(),
  igmpQuery: PEnum('NetworkInterface.IgmpQuery', ['IGMP_QUERY_DISABLED', 'IGMP_QUERY_V2']),
});

const InitializeParams = PMessage('AttachedDiskInitializeParams', {
  diskName: PString(),
  sourceImage: PString(),
  diskSizeGb: PInt64(),
  diskType: PString(),
  sourceImageEncryptionKey: CustomerEncryptionKey,
  labels: PMap(PString()),
  sourceSnapshot: PString(),
  sourceSnapshotEncryptionKey: CustomerEncryptionKey,
  description: PString(),
  replicaZones: PRepeated(PString()),
  resourcePolicies: PRepeated(PString()),
  onUpdateAction: PEnum('AttachedDiskInitializeParams.OnUpdateAction', ['RECREATE_DISK', 'RECREATE_DISK_IF_SOURCE_CHANGED', 'USE_EXISTING_DISK']),
  provisionedIops: PInt64(),
  licenses: PRepeated(PString()),
  architecture: PEnum('AttachedDiskInitializeParams.Architecture', ['ARCHITECTURE_UNSPECIFIED', 'ARM64', 'X86_64']),
  resourceManagerTags: PMap(PString()),
  provisionedThroughput: PInt64(),
  enableConfidentialCompute: PBool(),
  storagePool: PString(),
});

const AttachedDisk = PMessage('AttachedDisk', {
  kind: PString(),
  type: PEnum('AttachedDisk.Type', ['PERSISTENT', 'SCRATCH']),
  mode: PEnum('AttachedDisk.Mode', ['READ_ONLY', 'READ_WRITE']),
  savedState: PEnum('AttachedDisk.SavedState', ['DISK_SAVED_STATE_UNSPECIFIED', 'PRESERVED']),
  source: PString(),
  deviceName: PString(),
  index: PInt32(),
  boot: PBool(),
  initializeParams: InitializeParams,
  autoDelete: PBool(),
  licenses: PRepeated(PString()),
  interface: PEnum('AttachedDisk.Interface', ['NVME', 'SCSI']),
  guestOsFeatures: PRepeated(
    PMessage('GuestOsFeature', {
      type: PEnum('GuestOsFeature.Type', [
        'BARE_METAL_LINUX_COMPATIBLE',
        'FEATURE_TYPE_UNSPECIFIED',
        'GVNIC',
        'IDPF',
        'MULTI_IP_SUBNET',
        'SECURE_BOOT',
        'SEV_CAPABLE',
        'SEV_LIVE_MIGRATABLE',
        'SEV_LIVE_MIGRATABLE_V2',
        'SEV_SNP_CAPABLE',
        'SNP_SVSM_CAPABLE',
        'TDX_CAPABLE',
        'UEFI_COMPATIBLE',
        'VIRTIO_SCSI_MULTIQUEUE',
        'WINDOWS',
      ]),
    }),
  ),
  diskEncryptionKey: CustomerEncryptionKey,
  diskSizeGb: PInt64(),
  shieldedInstanceInitialState: PMessage('InitialStateConfig', {
    pk: FileContentBuffer,
    keks: PRepeated(FileContentBuffer),
    dbs: PRepeated(FileContentBuffer),
    dbxs: PRepeated(FileContentBuffer),
  }),
  forceAttach: PBool(),
  architecture: PEnum('AttachedDisk.Architecture', ['ARCHITECTURE_UNSPECIFIED', 'ARM64', 'X86_64']),
});

const Duration = PMessage('Duration', { seconds: PInt64(), nanos: PInt32() });

const Scheduling = PMessage('Scheduling', {
  onHostMaintenance: PEnum('Scheduling.OnHostMaintenance', ['MIGRATE', 'TERMINATE']),
  automaticRestart: PBool(),
  preemptible: PBool(),
  nodeAffinities: PRepeated(
    PMessage('SchedulingNodeAffinity', {
      key: PString(),
      operator: PEnum('SchedulingNodeAffinity.Operator', ['IN', 'NOT_IN', 'OPERATOR_UNSPECIFIED']),
      values: PRepeated(PString()),
    }),
  ),
  minNodeCpus: PInt32(),
  locationHint: PString(),
  availabilityDomain: PInt32(),
  provisioningModel: PEnum('Scheduling.ProvisioningModel', ['FLEX_START', 'RESERVATION_BOUND', 'SPOT', 'STANDARD']),
  instanceTerminationAction: PEnum('Scheduling.InstanceTerminationAction', ['DELETE', 'INSTANCE_TERMINATION_ACTION_UNSPECIFIED', 'STOP']),
  hostErrorTimeoutSeconds: PInt32(),
  localSsdRecoveryTimeout: Duration,
  skipGuestOsShutdown: PBool(),
  maxRunDuration: Duration,
  terminationTime: PString(),
  onInstanceStopAction: PMessage('SchedulingOnInstanceStopAction', { discardLocalSsd: PBool() }),
});

/** InstancePropertiesSchema is InstanceProperties: a template's properties, and the fields an instance shares with them. */
export const InstancePropertiesSchema = PMessage('InstanceProperties', {
  description: PString(),
  tags: PMessage('Tags', { items: PRepeated(PString()), fingerprint: PString() }),
  resourceManagerTags: PMap(PString()),
  machineType: PString(),
  canIpForward: PBool(),
  networkInterfaces: PRepeated(NetworkInterface),
  disks: PRepeated(AttachedDisk),
  metadata: PMessage('Metadata', {
    kind: PString(),
    fingerprint: PString(),
    items: PRepeated(PMessage('Items', { key: PString(), value: PString() })),
  }),
  serviceAccounts: PRepeated(PMessage('ServiceAccount', { email: PString(), scopes: PRepeated(PString()) })),
  scheduling: Scheduling,
  labels: PMap(PString()),
  guestAccelerators: PRepeated(PMessage('AcceleratorConfig', { acceleratorType: PString(), acceleratorCount: PInt32() })),
  minCpuPlatform: PString(),
  reservationAffinity: PMessage('ReservationAffinity', {
    consumeReservationType: PEnum('ReservationAffinity.ConsumeReservationType', ['ANY_RESERVATION', 'NO_RESERVATION', 'SPECIFIC_RESERVATION', 'UNSPECIFIED']),
    key: PString(),
    values: PRepeated(PString()),
  }),
  shieldedInstanceConfig: PMessage('ShieldedInstanceConfig', { enableSecureBoot: PBool(), enableVtpm: PBool(), enableIntegrityMonitoring: PBool() }),
  resourcePolicies: PRepeated(PString()),
  confidentialInstanceConfig: PMessage('ConfidentialInstanceConfig', {
    enableConfidentialCompute: PBool(),
    confidentialInstanceType: PEnum('ConfidentialInstanceConfig.ConfidentialInstanceType', ['CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED', 'SEV', 'SEV_SNP', 'TDX']),
  }),
  // The specification's neutral name, and the real service's name for the same field.
  privateIpv6ProviderAccess: PEnum('InstanceProperties.PrivateIpv6GoogleAccess', [
    'ENABLE_BIDIRECTIONAL_ACCESS_TO_GOOGLE',
    'ENABLE_OUTBOUND_VM_ACCESS_TO_GOOGLE',
    'INHERIT_FROM_SUBNETWORK',
  ]),
  privateIpv6GoogleAccess: PEnum('InstanceProperties.PrivateIpv6GoogleAccess', [
    'ENABLE_BIDIRECTIONAL_ACCESS_TO_GOOGLE',
    'ENABLE_OUTBOUND_VM_ACCESS_TO_GOOGLE',
    'INHERIT_FROM_SUBNETWORK',
  ]),
  advancedMachineFeatures: PMessage('AdvancedMachineFeatures', {
    enableNestedVirtualization: PBool(),
    threadsPerCore: PInt32(),
    visibleCoreCount: PInt32(),
    enableUefiNetworking: PBool(),
    performanceMonitoringUnit: PEnum('AdvancedMachineFeatures.PerformanceMonitoringUnit', [
      'ARCHITECTURAL',
      'ENHANCED',
      'PERFORMANCE_MONITORING_UNIT_UNSPECIFIED',
      'STANDARD',
    ]),
    turboMode: PString(),
  }),
  networkPerformanceConfig: PMessage('NetworkPerformanceConfig', {
    totalEgressBandwidthTier: PEnum('NetworkPerformanceConfig.TotalEgressBandwidthTier', ['DEFAULT', 'TIER_1']),
  }),
  keyRevocationActionType: PEnum('InstanceProperties.KeyRevocationActionType', ['KEY_REVOCATION_ACTION_TYPE_UNSPECIFIED', 'NONE', 'STOP']),
});

/** InstanceTemplateSchema is the insert body. */
export const InstanceTemplateSchema = PMessage('InstanceTemplate', {
  kind: PString(),
  id: PUint64(),
  creationTimestamp: PString(),
  name: PString(),
  description: PString(),
  properties: InstancePropertiesSchema,
  selfLink: PString(),
  selfLinkWithId: PString(),
  sourceInstance: PString(),
  sourceInstanceParams: PMessage('SourceInstanceParams', {
    diskConfigs: PRepeated(
      PMessage('DiskInstantiationConfig', {
        deviceName: PString(),
        instantiateFrom: PEnum('DiskInstantiationConfig.InstantiateFrom', [
          'ATTACH_READ_ONLY',
          'BLANK',
          'CUSTOM_IMAGE',
          'DEFAULT',
          'DO_NOT_INCLUDE',
          'SOURCE_IMAGE',
          'SOURCE_IMAGE_FAMILY',
        ]),
        autoDelete: PBool(),
        customImage: PString(),
      }),
    ),
  }),
  region: PString(),
});

/** InstanceTemplateInput is a decoded insert body. */
export type InstanceTemplateInput = Decoded<typeof InstanceTemplateSchema>;
/** InstancePropertiesInput is a decoded `properties`. */
export type InstancePropertiesInput = NonNullable<InstanceTemplateInput['properties']>;
/** NetworkInterfaceInput is one decoded network interface. */
export type NetworkInterfaceInput = NonNullable<InstancePropertiesInput['networkInterfaces']>[number];
/** AttachedDiskInput is one decoded disk. */
export type AttachedDiskInput = NonNullable<InstancePropertiesInput['disks']>[number];
/** SchedulingInput is a decoded scheduling block. */
export type SchedulingInput = NonNullable<InstancePropertiesInput['scheduling']>;
/** EncryptionKeyInput is a decoded customer encryption key. */
export type EncryptionKeyInput = NonNullable<AttachedDiskInput['diskEncryptionKey']>;
