import { setFlagsFromString } from 'node:v8';
import { fogbankPlugin } from '../plugin/generators/index.ts';
import { runNodePlugin } from '../plugin/runtime/index.ts';

// A plugin process runs its code once over one request: V8's optimising compiler (TurboFan)
// spends more CPU compiling the generator's hot functions than they then save. Measured on
// compute.proto (bench/plugin-generators.ts): ~0.49 s CPU with it, ~0.40 s without, and no
// slower wall time. Set before any generator code runs; only this executable does it, not a
// program that imports the generators.
setFlagsFromString('--no-opt');

/** main runs protoc-gen-fogbank on this process's stdin and stdout. */
export async function main(): Promise<number> {
  return runNodePlugin(fogbankPlugin, {
    argv: process.argv.slice(2),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}

process.exitCode = await main();
