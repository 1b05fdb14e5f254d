import { link, type Links } from '../shared/links.ts';
import { stableId } from './stable-id.ts';

/** PublicImage is one image of the public catalog. */
interface PublicImage {
  readonly project: string;
  readonly family: string;
  readonly name: string;
  readonly description: string;
  readonly diskSizeGb: number;
  readonly archiveSizeBytes: string;
  readonly architecture: 'X86_64' | 'ARM64';
  readonly created: string;
}

/** PUBLIC_IMAGES is the read-only image catalog: the current image of common public families. */
const PUBLIC_IMAGES: readonly PublicImage[] = [
  {
    project: 'debian-cloud',
    family: 'debian-12',
    name: 'debian-12-bookworm-v20250610',
    description: 'Debian, Debian GNU/Linux, 12 (bookworm), amd64 built on 20250610',
    diskSizeGb: 10,
    archiveSizeBytes: '1263469440',
    architecture: 'X86_64',
    created: '2025-06-10T12:00:00.000-07:00',
  },
  {
    project: 'debian-cloud',
    family: 'debian-12-arm64',
    name: 'debian-12-bookworm-arm64-v20250610',
    description: 'Debian, Debian GNU/Linux, 12 (bookworm), arm64 built on 20250610',
    diskSizeGb: 10,
    archiveSizeBytes: '1190000000',
    architecture: 'ARM64',
    created: '2025-06-10T12:00:00.000-07:00',
  },
  {
    project: 'debian-cloud',
    family: 'debian-11',
    name: 'debian-11-bullseye-v20250610',
    description: 'Debian, Debian GNU/Linux, 11 (bullseye), amd64 built on 20250610',
    diskSizeGb: 10,
    archiveSizeBytes: '1173283648',
    architecture: 'X86_64',
    created: '2025-06-10T12:00:00.000-07:00',
  },
  {
    project: 'ubuntu-os-cloud',
    family: 'ubuntu-2204-lts',
    name: 'ubuntu-2204-jammy-v20250606',
    description: 'Canonical, Ubuntu, 22.04 LTS, amd64 jammy image built on 2025-06-06',
    diskSizeGb: 10,
    archiveSizeBytes: '2300000000',
    architecture: 'X86_64',
    created: '2025-06-06T12:00:00.000-07:00',
  },
  {
    project: 'ubuntu-os-cloud',
    family: 'ubuntu-2404-lts-amd64',
    name: 'ubuntu-2404-noble-amd64-v20250606',
    description: 'Canonical, Ubuntu, 24.04 LTS, amd64 noble image built on 2025-06-06',
    diskSizeGb: 10,
    archiveSizeBytes: '2500000000',
    architecture: 'X86_64',
    created: '2025-06-06T12:00:00.000-07:00',
  },
  {
    project: 'centos-cloud',
    family: 'centos-stream-9',
    name: 'centos-stream-9-v20250610',
    description: 'CentOS, CentOS, Stream 9, x86_64 built on 20250610',
    diskSizeGb: 20,
    archiveSizeBytes: '3100000000',
    architecture: 'X86_64',
    created: '2025-06-10T12:00:00.000-07:00',
  },
  {
    project: 'rocky-linux-cloud',
    family: 'rocky-linux-9',
    name: 'rocky-linux-9-v20250610',
    description: 'Rocky Linux, Rocky Linux, 9, x86_64 built on 20250610',
    diskSizeGb: 20,
    archiveSizeBytes: '3000000000',
    architecture: 'X86_64',
    created: '2025-06-10T12:00:00.000-07:00',
  },
  {
    project: 'cos-cloud',
    family: 'cos-stable',
    name: 'cos-stable-121-18867-90-4',
    description: 'Google, Container-Optimized OS, 121-18867.90.4 stable',
    diskSizeGb: 10,
    archiveSizeBytes: '800000000',
    architecture: 'X86_64',
    created: '2025-06-05T12:00:00.000-07:00',
  },
  {
    project: 'windows-cloud',
    family: 'windows-2022',
    name: 'windows-server-2022-dc-v20250610',
    description: 'Microsoft, Windows Server, 2022, Server with Desktop Experience, x64 built on 20250610',
    diskSizeGb: 50,
    archiveSizeBytes: '12000000000',
    architecture: 'X86_64',
    created: '2025-06-10T12:00:00.000-07:00',
  },
];

/** PUBLIC_IMAGE_PROJECTS are the projects whose images every authenticated caller may read. */
export const PUBLIC_IMAGE_PROJECTS: ReadonlySet<string> = new Set(PUBLIC_IMAGES.map((image) => image.project));

/** CatalogImage is an image with what a disk created from it needs. */
export interface CatalogImage {
  readonly path: string;
  readonly diskSizeGb: number;
  render(links: Links): Record<string, unknown>;
}

function toCatalogImage(image: PublicImage): CatalogImage {
  const path = `projects/${image.project}/global/images/${image.name}`;
  return {
    path,
    diskSizeGb: image.diskSizeGb,
    render: (links) => ({
      kind: 'compute#image',
      id: stableId(path),
      creationTimestamp: image.created,
      name: image.name,
      description: image.description,
      sourceType: 'RAW',
      status: 'READY',
      archiveSizeBytes: image.archiveSizeBytes,
      diskSizeGb: String(image.diskSizeGb),
      licenses: [link(links, `projects/${image.project}/global/licenses/${image.family.split('-')[0]}`)],
      family: image.family,
      selfLink: link(links, path),
      labelFingerprint: '42WmSpB8rSM=',
      guestOsFeatures: [{ type: 'UEFI_COMPATIBLE' }, { type: 'VIRTIO_SCSI_MULTIQUEUE' }, { type: 'GVNIC' }, { type: 'SEV_CAPABLE' }],
      storageLocations: ['eu', 'asia', 'us'],
      architecture: image.architecture,
    }),
  };
}

/** findImageByFamily returns the current image of a family in a project. */
export function findImageByFamily(project: string, family: string): CatalogImage | undefined {
  const image = PUBLIC_IMAGES.find((candidate) => candidate.project === project && candidate.family === family);
  return image && toCatalogImage(image);
}

/** findImage returns an image by name. */
export function findImage(project: string, name: string): CatalogImage | undefined {
  const image = PUBLIC_IMAGES.find((candidate) => candidate.project === project && candidate.name === name);
  return image && toCatalogImage(image);
}

/** imagesOf lists the images of a project, by name. */
export function imagesOf(project: string): CatalogImage[] {
  return PUBLIC_IMAGES.filter((image) => image.project === project)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(toCatalogImage);
}

/**
 * resolveImagePath finds the image an image path names: `projects/P/global/images/NAME` or
 * `projects/P/global/images/family/FAMILY`.
 */
export function resolveImagePath(path: string): CatalogImage | undefined {
  const family = /^projects\/([^/]+)\/global\/images\/family\/([^/]+)$/.exec(path);
  if (family !== null) return findImageByFamily(family[1]!, family[2]!);
  const named = /^projects\/([^/]+)\/global\/images\/([^/]+)$/.exec(path);
  if (named !== null) return findImage(named[1]!, named[2]!);
  return undefined;
}
