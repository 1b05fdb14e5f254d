import { createHash } from 'node:crypto';
import { PUBLIC_IMAGE_PROJECTS, resolveImagePath } from '../catalog/index.ts';
import { invalidFieldValue, requiredField } from '../shared/errors.ts';
import { isKnownZone } from '../shared/locations.ts';
import { resourcePathOf } from '../shared/links.ts';
import type { AttachedDiskInput, EncryptionKeyInput } from './schema.ts';
import { type ValidationContext, fieldRootOf } from './validation-context.ts';

/** MIN_DISK_SIZE_GB is the smallest persistent disk. */
export const MIN_DISK_SIZE_GB = 10;
/** BLANK_DISK_SIZE_GB is the size of a new disk with no source image. */
export const BLANK_DISK_SIZE_GB = 500;
/** PROVISIONED_IOPS_RANGE bounds initializeParams.provisionedIops. */
export const PROVISIONED_IOPS_RANGE = [10_000, 120_000] as const;
/** DISK_TYPES are the disk type names a template may name. */
export const DISK_TYPES: ReadonlySet<string> = new Set([
  'pd-standard',
  'pd-balanced',
  'pd-ssd',
  'pd-extreme',
  'local-ssd',
  'hyperdisk-balanced',
  'hyperdisk-balanced-high-availability',
  'hyperdisk-extreme',
  'hyperdisk-ml',
  'hyperdisk-throughput',
]);

const IOPS_DISK_TYPES: ReadonlySet<string> = new Set(['pd-extreme', 'hyperdisk-balanced', 'hyperdisk-balanced-high-availability', 'hyperdisk-extreme']);
const SNAPSHOT_PATH = /^projects\/[^/]+\/global\/snapshots\/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const IMAGE_PATH = /^projects\/[^/]+\/global\/images\/(?:family\/)?[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const DEVICE_NAME = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** normalizeDisks validates `properties.disks` and returns them with server-filled fields. */
export function normalizeDisks(disks: readonly AttachedDiskInput[], ctx: ValidationContext): Record<string, unknown>[] {
  const base = `${fieldRootOf(ctx)}.disks`;
  const bootIndexes = disks.flatMap((disk, index) => (disk.boot === true ? [index] : []));
  if (bootIndexes.length > 1) throw invalidFieldValue(base, '', 'Only one boot disk may be specified.');
  if (bootIndexes.length === 1 && bootIndexes[0] !== 0)
    throw invalidFieldValue(`${base}[${bootIndexes[0]}].boot`, 'true', 'Boot disk must be the first disk attached to the instance.');
  const deviceNames = new Set<string>();
  return disks.map((disk, index) => {
    const out = normalizeDisk(disk, index, `${base}[${index}]`, ctx);
    const deviceName = out['deviceName'];
    if (typeof deviceName === 'string') {
      if (deviceNames.has(deviceName)) throw invalidFieldValue(`${base}[${index}].deviceName`, deviceName, 'Device names must be unique within an instance.');
      deviceNames.add(deviceName);
    }
    return out;
  });
}

function normalizeDisk(disk: AttachedDiskInput, index: number, field: string, ctx: ValidationContext): Record<string, unknown> {
  const { kind: _kind, index: _index, savedState: _savedState, initializeParams, diskEncryptionKey, ...rest } = disk;
  const type = disk.type ?? 'PERSISTENT';
  const boot = disk.boot ?? false;
  const hasSource = disk.source !== undefined && disk.source !== '';
  const out: Record<string, unknown> = {
    kind: 'compute#attachedDisk',
    ...rest,
    type,
    mode: disk.mode ?? 'READ_WRITE',
    boot,
    autoDelete: disk.autoDelete ?? false,
    index,
  };
  if (hasSource && initializeParams !== undefined) {
    throw invalidFieldValue(`${field}.initializeParams`, '', 'Cannot specify both source and initializeParams for a disk.');
  }
  if (type === 'SCRATCH') {
    if (boot) throw invalidFieldValue(`${field}.type`, 'SCRATCH', 'A local SSD (SCRATCH) disk cannot be a boot disk.');
    if (hasSource) throw invalidFieldValue(`${field}.source`, disk.source, 'A local SSD (SCRATCH) disk cannot have a source.');
    if (initializeParams?.diskType !== undefined && initializeParams.diskType !== 'local-ssd') {
      throw invalidFieldValue(`${field}.initializeParams.diskType`, initializeParams.diskType, 'A SCRATCH disk must use the local-ssd disk type.');
    }
  } else {
    if (disk.deviceName !== undefined && disk.deviceName !== '' && !DEVICE_NAME.test(disk.deviceName)) {
      throw invalidFieldValue(`${field}.deviceName`, disk.deviceName, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
    }
    out['deviceName'] = disk.deviceName !== undefined && disk.deviceName !== '' ? disk.deviceName : `persistent-disk-${index}`;
    if (!hasSource && initializeParams === undefined) {
      throw requiredField(`${field}.initializeParams`);
    }
  }
  if (disk.diskSizeGb !== undefined) checkSize(`${field}.diskSizeGb`, disk.diskSizeGb, MIN_DISK_SIZE_GB);
  if (diskEncryptionKey !== undefined) out['diskEncryptionKey'] = normalizeKey(diskEncryptionKey, `${field}.diskEncryptionKey`);
  if (initializeParams !== undefined) out['initializeParams'] = normalizeInitializeParams(initializeParams, boot, type, `${field}.initializeParams`, ctx);
  return out;
}

function normalizeInitializeParams(
  params: NonNullable<AttachedDiskInput['initializeParams']>,
  boot: boolean,
  diskType: string,
  field: string,
  ctx: ValidationContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  const sources = [params.sourceImage, params.sourceSnapshot].filter((value) => value !== undefined && value !== '');
  if (boot && sources.length !== 1) {
    throw invalidFieldValue(
      field,
      '',
      'Exactly one of initializeParams.sourceImage, initializeParams.sourceSnapshot or source must be specified for a new boot disk.',
    );
  }
  if (sources.length > 1) throw invalidFieldValue(field, '', 'Only one of sourceImage and sourceSnapshot may be specified.');
  let imageSizeGb: number | undefined;
  if (params.sourceImage !== undefined && params.sourceImage !== '') {
    const path = resourcePathOf(params.sourceImage, ctx.project);
    if (path === undefined || !IMAGE_PATH.test(path)) throw invalidFieldValue(`${field}.sourceImage`, params.sourceImage, 'The URL is malformed.');
    const project = path.split('/')[1]!;
    // Public images grant read access to every authenticated caller, as on the real service.
    if (!PUBLIC_IMAGE_PROJECTS.has(project)) ctx.checkPermission('compute.images.get', path);
    const image = resolveImagePath(path);
    if (image === undefined) throw invalidFieldValue(`${field}.sourceImage`, params.sourceImage, 'The referenced image resource cannot be found.');
    imageSizeGb = image.diskSizeGb;
  }
  if (params.sourceSnapshot !== undefined && params.sourceSnapshot !== '') {
    const path = resourcePathOf(params.sourceSnapshot, ctx.project);
    if (path === undefined || !SNAPSHOT_PATH.test(path)) {
      throw invalidFieldValue(`${field}.sourceSnapshot`, params.sourceSnapshot, 'The URL is malformed. Expected global/snapshots/<snapshot>.');
    }
  }
  if (params.diskType !== undefined && params.diskType !== '') {
    if (params.diskType.includes('/')) throw invalidFieldValue(`${field}.diskType`, params.diskType, 'Instance templates take a disk type name, not a URL.');
    if (!DISK_TYPES.has(params.diskType)) throw invalidFieldValue(`${field}.diskType`, params.diskType, `Disk type '${params.diskType}' does not exist.`);
    if (params.diskType === 'local-ssd' && diskType !== 'SCRATCH')
      throw invalidFieldValue(`${field}.diskType`, params.diskType, 'The local-ssd disk type requires a SCRATCH disk.');
  }
  if (diskType !== 'SCRATCH') {
    if (params.diskSizeGb !== undefined) {
      const size = checkSize(`${field}.diskSizeGb`, params.diskSizeGb, MIN_DISK_SIZE_GB);
      if (imageSizeGb !== undefined && size < imageSizeGb) {
        throw invalidFieldValue(`${field}.diskSizeGb`, params.diskSizeGb, `Requested disk size cannot be smaller than the image size (${imageSizeGb} GB)`);
      }
    } else if (params.sourceSnapshot === undefined || params.sourceSnapshot === '') {
      out['diskSizeGb'] = String(imageSizeGb ?? BLANK_DISK_SIZE_GB);
    }
  }
  if (params.provisionedIops !== undefined) {
    const iops = Number(params.provisionedIops);
    const [min, max] = PROVISIONED_IOPS_RANGE;
    if (iops < min || iops > max) {
      throw invalidFieldValue(`${field}.provisionedIops`, params.provisionedIops, `Provisioned IOPS must be between ${min} and ${max}.`);
    }
    if (params.diskType !== undefined && !IOPS_DISK_TYPES.has(params.diskType)) {
      throw invalidFieldValue(`${field}.provisionedIops`, params.provisionedIops, `Provisioned IOPS cannot be set for disk type '${params.diskType}'.`);
    }
  }
  if (params.replicaZones !== undefined && params.replicaZones.length > 0) {
    if (params.replicaZones.length !== 2) throw invalidFieldValue(`${field}.replicaZones`, '', 'Regional disks require exactly 2 replica zones.');
    const zones = params.replicaZones.map((zone, i) => {
      const name = zone.split('/').pop() ?? '';
      if (!isKnownZone(name)) throw invalidFieldValue(`${field}.replicaZones[${i}]`, zone, 'The referenced zone resource cannot be found.');
      return name;
    });
    if (zones[0] === zones[1]) throw invalidFieldValue(`${field}.replicaZones`, '', 'The two replica zones must be different.');
    if (zones[0]!.replace(/-[a-z]$/, '') !== zones[1]!.replace(/-[a-z]$/, ''))
      throw invalidFieldValue(`${field}.replicaZones`, '', 'Both replica zones must be in the same region.');
  }
  if (params.sourceImageEncryptionKey !== undefined)
    out['sourceImageEncryptionKey'] = normalizeKey(params.sourceImageEncryptionKey, `${field}.sourceImageEncryptionKey`);
  if (params.sourceSnapshotEncryptionKey !== undefined)
    out['sourceSnapshotEncryptionKey'] = normalizeKey(params.sourceSnapshotEncryptionKey, `${field}.sourceSnapshotEncryptionKey`);
  return out;
}

function checkSize(field: string, value: string, min: number): number {
  const size = Number(value);
  if (size < min) throw invalidFieldValue(field, value, `Disk size must be at least ${min} GB.`);
  return size;
}

/** normalizeKey enforces "exactly one kind of key" and fills the output-only sha256 of a raw key. */
function normalizeKey(key: EncryptionKeyInput, field: string): Record<string, unknown> {
  const { sha256: _sha256, ...rest } = key;
  const given = (['rawKey', 'rsaEncryptedKey', 'kmsKeyName'] as const).filter((name) => key[name] !== undefined && key[name] !== '');
  if (given.length > 1) throw invalidFieldValue(field, '', `Only one of rawKey, rsaEncryptedKey or kmsKeyName may be specified; found ${given.join(' and ')}.`);
  if (key.kmsKeyServiceAccount !== undefined && key.kmsKeyName === undefined) {
    throw invalidFieldValue(`${field}.kmsKeyServiceAccount`, key.kmsKeyServiceAccount, 'kmsKeyServiceAccount can only be used with kmsKeyName.');
  }
  const out: Record<string, unknown> = { ...rest };
  if (key.rawKey !== undefined && key.rawKey !== '') {
    const bytes = decodeBase64Strict(key.rawKey);
    if (bytes === undefined || bytes.length !== 32)
      throw invalidFieldValue(`${field}.rawKey`, key.rawKey, 'The raw key must be a 256-bit key encoded in RFC 4648 base64.');
    out['sha256'] = createHash('sha256').update(bytes).digest('base64');
  }
  if (key.rsaEncryptedKey !== undefined && key.rsaEncryptedKey !== '') {
    const bytes = decodeBase64Strict(key.rsaEncryptedKey);
    if (bytes === undefined || bytes.length !== 256)
      throw invalidFieldValue(`${field}.rsaEncryptedKey`, key.rsaEncryptedKey, 'The RSA-wrapped key must be 2048 bits encoded in RFC 4648 base64.');
  }
  if (
    key.kmsKeyName !== undefined &&
    key.kmsKeyName !== '' &&
    !/^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+(\/cryptoKeyVersions\/[^/]+)?$/.test(key.kmsKeyName)
  ) {
    throw invalidFieldValue(`${field}.kmsKeyName`, key.kmsKeyName, 'Must be of the form projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>.');
  }
  return out;
}

function decodeBase64Strict(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return Buffer.from(text, 'base64');
}
