import { fogbankPlugin } from '../plugin/generators/index.ts';
import { runNodePlugin } from '../plugin/runtime/index.ts';

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
