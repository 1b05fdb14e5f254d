/**
 * A preconfigured set's name read as Google maps it onto the Core Rule Set (shared/reference/
 * cloud-armor-waf.md §1.1–§1.2): `<family>-v33-stable|canary` are CRS 3.3 (signature ids
 * `owasp-crs-v030301-id<crs id>-<family>`), the unversioned `<family>-stable|canary` CRS 3.0
 * (`owasp-crs-v030001-…`). Every stable set is "in sync with" its canary, so both names read the
 * same table. Sets CRS 3.3 cannot supply are named as such, never read as a set that matches nothing.
 */
import { FAMILIES, type FamilyTables, type SignatureTable, type WafFamily } from './signatures.ts';

/** ResolvedSet is a set fogbank evaluates with the Core Rule Set. */
export interface ResolvedSet {
  readonly name: string;
  readonly family: WafFamily;
  readonly crsFile: string;
  /** table maps each CRS rule id of the set to its sensitivity. */
  readonly table: SignatureTable;
  /** signatureId spells a CRS rule id as Cloud Armor does (`owasp-crs-v030301-id942100-sqli`). */
  signatureId(crsId: string): string;
  /** crsIdOf reads a signature id of this set back (undefined for another set's or version's id). */
  crsIdOf(signatureId: string): string | undefined;
}

/** UnsupportedSet is a set whose signatures the Core Rule Set 3.3 does not hold. */
export interface UnsupportedSet {
  readonly name: string;
  readonly unsupported: string;
}

const VERSION_TAGS = { v33: 'v030301', v30: 'v030001' } as const;

const resolved = new Map<string, ResolvedSet | UnsupportedSet | undefined>();

/** resolveSet reads a set's name; undefined for a name that is no WAF set (a named source IP list). */
export function resolveSet(name: string): ResolvedSet | UnsupportedSet | undefined {
  if (resolved.has(name)) return resolved.get(name);
  const set = read(name);
  resolved.set(name, set);
  return set;
}

function read(name: string): ResolvedSet | UnsupportedSet | undefined {
  if (name === 'cve-canary') return { name, unsupported: 'cve-canary holds Google-authored signatures (Log4j, React) that CRS 3.3 has no rules for' };
  if (name === 'json-sqli-canary') return { name, unsupported: 'json-sqli-canary is CRS 4 rule 942550, which CRS 3.3 does not have' };
  const match = /^([a-z]+)(?:-(v\d+))?-(?:stable|canary)$/.exec(name);
  if (match === null) return undefined;
  const family = FAMILIES.find((tables) => tables.family === match[1]);
  if (family === undefined) return undefined;
  const version = match[2];
  if (version === 'v33') return resolvedSet(name, family, family.v33, VERSION_TAGS.v33);
  if (version !== undefined)
    return { name, unsupported: `${name} is CRS ${version.slice(1, 2)}.${version.slice(2)}, which Debian does not ship (fogbank runs CRS 3.3)` };
  // Google's CRS 3.0 sets have no java or nodejs: those names are read as their v33 namesakes (unverified).
  if (family.v30 === undefined) return resolvedSet(name, family, family.v33, VERSION_TAGS.v33);
  return resolvedSet(name, family, family.v30, VERSION_TAGS.v30);
}

function resolvedSet(name: string, tables: FamilyTables, table: SignatureTable, tag: string): ResolvedSet {
  const prefix = `owasp-crs-${tag}-id`;
  const suffix = `-${tables.family}`;
  return {
    name,
    family: tables.family,
    crsFile: tables.crsFile,
    table,
    signatureId: (crsId) => `${prefix}${crsId}${suffix}`,
    crsIdOf: (signatureId) => {
      if (!signatureId.startsWith(prefix) || !signatureId.endsWith(suffix)) return undefined;
      const id = signatureId.slice(prefix.length, signatureId.length - suffix.length);
      return table.has(id) ? id : undefined;
    },
  };
}

/** isUnsupported tells an unsupported set from a resolved one. */
export function isUnsupported(set: ResolvedSet | UnsupportedSet): set is UnsupportedSet {
  return 'unsupported' in set;
}
