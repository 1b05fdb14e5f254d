/** Sizes as people write them on command lines: bytes, or binary multiples (`64K`, `512M`, `2G`). */

/** parseByteSize reads `N`, `NK`, `NM` or `NG` (binary multiples: 512M is 512 MiB), or undefined when the text is none of them. */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+)([KMG]?)$/i.exec(text);
  if (match === null) return undefined;
  const bytes = Number(match[1]) * 1024 ** ' KMG'.indexOf((match[2] || ' ').toUpperCase());
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
