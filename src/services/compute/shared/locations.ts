import { ownValue } from '../../../core/own.ts';
import { invalidFieldValue } from './errors.ts';

/** REGIONS is the region catalog fogbank knows (every public region), each with its zones. */
export const REGIONS: Readonly<Record<string, readonly string[]>> = {
  'africa-south1': ['a', 'b', 'c'],
  'asia-east1': ['a', 'b', 'c'],
  'asia-east2': ['a', 'b', 'c'],
  'asia-northeast1': ['a', 'b', 'c'],
  'asia-northeast2': ['a', 'b', 'c'],
  'asia-northeast3': ['a', 'b', 'c'],
  'asia-south1': ['a', 'b', 'c'],
  'asia-south2': ['a', 'b', 'c'],
  'asia-southeast1': ['a', 'b', 'c'],
  'asia-southeast2': ['a', 'b', 'c'],
  'asia-southeast3': ['a', 'b', 'c'],
  'australia-southeast1': ['a', 'b', 'c'],
  'australia-southeast2': ['a', 'b', 'c'],
  'europe-central2': ['a', 'b', 'c'],
  'europe-north1': ['a', 'b', 'c'],
  'europe-north2': ['a', 'b', 'c'],
  'europe-southwest1': ['a', 'b', 'c'],
  'europe-west1': ['b', 'c', 'd'],
  'europe-west10': ['a', 'b', 'c'],
  'europe-west12': ['a', 'b', 'c'],
  'europe-west2': ['a', 'b', 'c'],
  'europe-west3': ['a', 'b', 'c'],
  'europe-west4': ['a', 'b', 'c'],
  'europe-west6': ['a', 'b', 'c'],
  'europe-west8': ['a', 'b', 'c'],
  'europe-west9': ['a', 'b', 'c'],
  'me-central1': ['a', 'b', 'c'],
  'me-central2': ['a', 'b', 'c'],
  'me-west1': ['a', 'b', 'c'],
  'northamerica-northeast1': ['a', 'b', 'c'],
  'northamerica-northeast2': ['a', 'b', 'c'],
  'northamerica-south1': ['a', 'b', 'c'],
  'southamerica-east1': ['a', 'b', 'c'],
  'southamerica-west1': ['a', 'b', 'c'],
  'us-central1': ['a', 'b', 'c', 'f'],
  'us-east1': ['b', 'c', 'd'],
  'us-east4': ['a', 'b', 'c'],
  'us-east5': ['a', 'b', 'c'],
  'us-south1': ['a', 'b', 'c'],
  'us-west1': ['a', 'b', 'c'],
  'us-west2': ['a', 'b', 'c'],
  'us-west3': ['a', 'b', 'c'],
  'us-west4': ['a', 'b', 'c'],
};

/** REGION_NAMES lists the catalog's regions in order. */
export const REGION_NAMES: readonly string[] = Object.keys(REGIONS).sort();

/** Scope is where a compute resource lives: global, one region, or one zone. */
export type Scope = { readonly kind: 'global' } | { readonly kind: 'region'; readonly name: string } | { readonly kind: 'zone'; readonly name: string };

/** GLOBAL is the global scope. */
export const GLOBAL: Scope = { kind: 'global' };

/** scopePath renders a scope as it appears in URLs: `global`, `regions/R`, `zones/Z`. */
export function scopePath(scope: Scope): string {
  return scope.kind === 'global' ? 'global' : `${scope.kind === 'region' ? 'regions' : 'zones'}/${scope.name}`;
}

/** regionScope checks a region path parameter against the catalog. */
export function regionScope(region: string): Scope {
  if (ownValue(REGIONS, region) === undefined) throw invalidFieldValue('region', region, 'Unknown region.');
  return { kind: 'region', name: region };
}

/** zoneScope checks a zone path parameter against the catalog. */
export function zoneScope(zone: string): Scope {
  if (!isKnownZone(zone)) throw invalidFieldValue('zone', zone, 'Unknown zone.');
  return { kind: 'zone', name: zone };
}

/** isKnownZone is true for `REGION-LETTER` zones of the catalog. */
export function isKnownZone(zone: string): boolean {
  const match = /^(.+)-([a-z])$/.exec(zone);
  return match !== null && (ownValue(REGIONS, match[1]!)?.includes(match[2]!) ?? false);
}
