// One place that runs the harness's cleanups when a test file's process ends, however it ends:
// a normal exit, or SIGINT/SIGTERM from the test runner (which otherwise skips 'exit' handlers).

const cleanups: (() => void)[] = [];
let installed = false;

function runCleanups(): void {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // Keep going: one failed cleanup must not leave the others undone.
    }
  }
}

/** onTestProcessExit registers a synchronous cleanup run once when this process ends (last registered runs first). */
export function onTestProcessExit(cleanup: () => void): void {
  cleanups.push(cleanup);
  if (installed) return;
  installed = true;
  process.once('exit', runCleanups);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      runCleanups();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
}
