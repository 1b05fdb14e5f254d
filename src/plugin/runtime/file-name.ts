/**
 * fileNameProblem returns why `name` may not be emitted, or undefined when it is fine.
 * plugin.proto: relative to the output directory, no `.` or `..` components, `/` separators.
 * protoc itself only enforces part of this (and only since v35), so a plugin that checks before
 * emitting fails the same way under every host.
 */
export function fileNameProblem(name: string): string | undefined {
  if (name === '') return 'the name is empty';
  if (name.startsWith('/')) return 'the name must be relative, not absolute';
  if (name.includes('\\')) return 'the name must use "/" as separator, not "\\"';
  if (/^[A-Za-z]:/.test(name)) return 'the name must be relative, not a drive path';
  for (const part of name.split('/')) {
    if (part === '') return 'the name has an empty path component';
    if (part === '.' || part === '..') return `the name must not have "${part}" components`;
  }
  if (name.includes('\0')) return 'the name contains a NUL character';
  return undefined;
}
