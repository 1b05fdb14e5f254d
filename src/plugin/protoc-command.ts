import { fogbankPlugin } from './generators/index.ts';
import { runHostCommand, type HostIo } from './host/index.ts';

/**
 * runProtocCommand is `fogbank protoc ARGS`: a protoc-compatible plugin host that starts from a
 * descriptor set instead of .proto sources. `--fogbank_out` runs protoc-gen-fogbank in-process
 * unless `--plugin` names another executable. Resolves to the process exit code.
 */
export function runProtocCommand(argv: string[], io?: Partial<HostIo>): Promise<number> {
  return runHostCommand(argv, {
    cwd: io?.cwd ?? process.cwd(),
    stdout: io?.stdout ?? ((text) => void process.stdout.write(text)),
    stderr: io?.stderr ?? ((text) => void process.stderr.write(text)),
    builtins: io?.builtins ?? { fogbank: fogbankPlugin },
  });
}
