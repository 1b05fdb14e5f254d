import { invalidFieldValue } from '../shared/errors.ts';
import { resourcePathOf } from '../shared/links.ts';

/**
 * The machine types fogbank's zones offer: the general-purpose families every public zone has
 * (E2, N1, N2, N2D) with their vCPUs and memory, as `machineTypes.list` shows them. A type outside
 * this list is one the zone does not have.
 */
const SHAPES: Readonly<Record<string, { readonly cpus: number; readonly memoryMb: number }>> = {
  'e2-micro': { cpus: 2, memoryMb: 1024 },
  'e2-small': { cpus: 2, memoryMb: 2048 },
  'e2-medium': { cpus: 2, memoryMb: 4096 },
  'e2-standard-2': { cpus: 2, memoryMb: 8192 },
  'e2-standard-4': { cpus: 4, memoryMb: 16384 },
  'e2-standard-8': { cpus: 8, memoryMb: 32768 },
  'e2-highmem-2': { cpus: 2, memoryMb: 16384 },
  'e2-highcpu-2': { cpus: 2, memoryMb: 2048 },
  'f1-micro': { cpus: 1, memoryMb: 614 },
  'g1-small': { cpus: 1, memoryMb: 1740 },
  'n1-standard-1': { cpus: 1, memoryMb: 3840 },
  'n1-standard-2': { cpus: 2, memoryMb: 7680 },
  'n1-standard-4': { cpus: 4, memoryMb: 15360 },
  'n1-standard-8': { cpus: 8, memoryMb: 30720 },
  'n2-standard-2': { cpus: 2, memoryMb: 8192 },
  'n2-standard-4': { cpus: 4, memoryMb: 16384 },
  'n2-standard-8': { cpus: 8, memoryMb: 32768 },
  'n2d-standard-2': { cpus: 2, memoryMb: 8192 },
  'n2d-standard-4': { cpus: 4, memoryMb: 16384 },
};

const MACHINE_TYPE_PATH = /^projects\/([^/]+)\/zones\/([^/]+)\/machineTypes\/([^/]+)$/;

/**
 * machineTypePath reads an instance's `machineType` (a URL, `zones/Z/machineTypes/N`, or a
 * template's bare name) into its path in `zone`, or throws the real 400: `Machine type with name
 * 'N' does not exist in zone 'Z'.`
 */
export function machineTypePath(text: string, project: string, zone: string, field = 'resource.machineType'): string {
  const path = text.includes('/') ? resourcePathOf(text, project) : `projects/${project}/zones/${zone}/machineTypes/${text}`;
  const match = path === undefined ? null : MACHINE_TYPE_PATH.exec(path);
  if (path === undefined || match === null) throw invalidFieldValue(field, text, 'The URL is malformed.');
  const [, , typeZone, name] = match as unknown as [string, string, string, string];
  const custom = /^(?:(?:e2|n1|n2|n2d)-)?custom-\d+-\d+$/.test(name);
  if (typeZone !== zone || (!Object.hasOwn(SHAPES, name) && !custom))
    throw invalidFieldValue(field, text, `Machine type with name '${name}' does not exist in zone '${zone}'.`);
  return path;
}
