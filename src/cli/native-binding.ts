// better-sqlite3 (the SQLite store) is a native module whose install script builds or fetches its
// binary; package managers that block dependency scripts (npm 12, pnpm 10, `--ignore-scripts`)
// leave it without one, and it then fails with the `bindings` package's own message. This says
// what to do, after that message (docs/distribution.md).

/** MISSING_BINDING is how the `bindings` package begins when a native module has no binary. */
const MISSING_BINDING = 'Could not locate the bindings file.';

/** missingSqliteBindingHint is the advice for a start that failed for want of better-sqlite3's binary, or undefined for any other failure. */
export function missingSqliteBindingHint(message: string): string | undefined {
  if (!message.startsWith(MISSING_BINDING) || !message.includes('better_sqlite3.node')) return undefined;
  return [
    "better-sqlite3's install script did not run (package managers that block install scripts skip it), so the SQLite store cannot open.",
    'Allow it and reinstall: npm --allow-scripts=better-sqlite3 (or "allowScripts" in your package.json), pnpm approve-builds, or bun trustedDependencies;',
    'or run `npm rebuild better-sqlite3` where it is installed; or start without SQLite: --ephemeral, --store memory or --store postgres://…',
  ].join('\n');
}
