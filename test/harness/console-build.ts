/** ensureConsoleBuilt builds dist/console/ when it is missing (the console's tests need its page). */
import { existsSync } from 'node:fs';

/** ensureConsoleBuilt builds the console's browser files once when there are none. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (existsSync('dist/console/manifest.json')) return;
  const { buildConsole } = await import('../../scripts/console-build.mjs');
  await buildConsole({ quiet: true });
}
