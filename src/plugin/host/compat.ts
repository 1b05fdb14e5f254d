/**
 * CompatMode picks whose response-handling behaviour the host reproduces.
 * - `protoc`: current protoc (observed against 36.2): checks accumulate, the feature messages end
 *   in a newline, and names containing `..` are refused at write time.
 * - `protoc-legacy`: protoc 3.21 to 27: `response.error` wins over feature checks, the proto3
 *   optional message has no trailing newline, the last chunk is closed after the checks, and
 *   there is no editions check. Names are still confined to the output directory (3.21 would
 *   write `../x` outside it; fogbank never does).
 * - `buf`: `buf generate`: insertion before every marker line with buf's indentation and line
 *   handling, buf's message wording, missing proto3-optional support only a warning.
 */
export type CompatMode = 'protoc' | 'protoc-legacy' | 'buf';

/** COMPAT_MODES lists the accepted `--compat` values. */
export const COMPAT_MODES: readonly CompatMode[] = ['protoc', 'protoc-legacy', 'buf'];

/** isCompatMode narrows a command-line string to a CompatMode. */
export function isCompatMode(value: string): value is CompatMode {
  return (COMPAT_MODES as readonly string[]).includes(value);
}
