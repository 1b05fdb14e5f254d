import { HostError } from './errors.ts';
import type { CompatMode } from './compat.ts';

/**
 * The `compiler_version` (field 3) of a CodeGeneratorRequest, as the compiler whose behaviour
 * the host reproduces sends it (plugins print it: protoc-gen-go's header says `protoc vX.Y.Z`,
 * "(unknown)" without it). protoc fills it from PROTOBUF_VERSION (major = /1000000, minor =
 * /1000 % 1000, patch = % 1000) and always sets `suffix`, even to "" (observed with
 * `--decode_raw`: npm protoc 36.2 sends {7, 36, 2, ""}, 3.21.0 sends {3, 21, 0, ""}).
 * `buf generate` 1.75 sends none at all (observed with a capture plugin), so buf mode leaves the
 * field out: a plugin run by fogbank in buf mode sees what it sees under buf.
 */

/** CompilerVersion is protobuf's `Version` message. */
export interface CompilerVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** An alpha, beta or rc marker without a leading dash (`rc2`); "" for stable releases. */
  readonly suffix: string;
}

/** DEFAULT_COMPILER_VERSIONS is what each compat mode sends when no `--compiler_version` says otherwise. */
export const DEFAULT_COMPILER_VERSIONS: Readonly<Record<CompatMode, CompilerVersion | undefined>> = {
  // npm protoc 36.2, the release `protoc` mode was observed against (the major tracks the C++ runtime).
  protoc: { major: 7, minor: 36, patch: 2, suffix: '' },
  // npm protoc 21.0.0 (libprotoc 3.21.0), the oldest release `protoc-legacy` reproduces.
  'protoc-legacy': { major: 3, minor: 21, patch: 0, suffix: '' },
  buf: undefined,
};

/**
 * parseCompilerVersion reads `--compiler_version`: `MAJOR.MINOR.PATCH` with an optional
 * `-SUFFIX`, or `none` to send no version at all.
 */
export function parseCompilerVersion(text: string): CompilerVersion | undefined {
  if (text === 'none') return undefined;
  const match = /^(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:-([0-9A-Za-z.-]+))?$/.exec(text);
  if (match === null) throw new HostError(`Invalid --compiler_version value: ${text} (expected MAJOR.MINOR.PATCH[-SUFFIX] or none)`);
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), suffix: match[4] ?? '' };
}
