// A composite GitHub action's step as the runner runs it: the step's `env` from action.yml with
// `${{ inputs.NAME }}` replaced by the input given (or its default), its `run` script written to a
// file and run by `bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`), with
// GITHUB_ACTION_PATH set to the action's folder; and the GITHUB_ENV / GITHUB_OUTPUT files read back.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { tempDir } from '../../src/testing/temp.ts';
import { runToEnd } from './process.ts';

interface ActionFile {
  readonly inputs?: Record<string, { readonly default?: string }>;
  readonly outputs?: Record<string, { readonly value: string }>;
  readonly runs: { readonly using: string; readonly steps: readonly { id?: string; shell?: string; env?: Record<string, string>; run?: string }[] };
}

/** readAction reads the action.yml of a folder. */
function readAction(folder: string): ActionFile {
  return parse(readFileSync(join(folder, 'action.yml'), 'utf8')) as ActionFile;
}

/** substitute replaces `${{ inputs.NAME }}` by the input's value; any other expression fails (the runner would evaluate it, this does not). */
function substitute(text: string, inputs: Readonly<Record<string, string>>): string {
  const replaced = text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => {
    assert.ok(name in inputs, `action.yml uses an undeclared input ${name}`);
    return inputs[name]!;
  });
  assert.ok(!replaced.includes('${{'), `an expression this harness does not evaluate: ${text}`);
  return replaced;
}

/**
 * runCompositeAction runs each step of the composite action in `folder` with `given` inputs (the
 * others at their defaults; an undeclared one fails) and `env` (the runner's and the job's
 * variables), and resolves with the last step's result.
 */
export async function runCompositeAction(
  folder: string,
  given: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ exit: number | string; stdout: string; stderr: string }> {
  const action = readAction(folder);
  assert.equal(action.runs.using, 'composite');
  const declared = action.inputs ?? {};
  for (const name of Object.keys(given)) assert.ok(name in declared, `${folder}/action.yml has no input ${name}`);
  const inputs = Object.fromEntries(Object.entries(declared).map(([name, spec]) => [name, given[name] ?? spec.default ?? '']));
  let result: { exit: number | string; stdout: string; stderr: string } = { exit: 0, stdout: '', stderr: '' };
  for (const step of action.runs.steps) {
    assert.equal(step.shell, 'bash');
    assert.ok(step.run !== undefined, 'a step that is not a run step');
    const script = join(tempDir('action-step'), 'step.sh');
    writeFileSync(script, substitute(step.run, inputs));
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, substitute(value, inputs)]));
    result = await runToEnd(
      'bash',
      ['--noprofile', '--norc', '-eo', 'pipefail', script],
      { cwd: env['RUNNER_TEMP'], env: { ...env, ...stepEnv, GITHUB_ACTION_PATH: folder } },
      timeoutMs,
    );
    if (result.exit !== 0) return result;
  }
  return result;
}

/** actionOutputs are the action's outputs (`${{ steps.ID.outputs.NAME }}`) from what its steps wrote to GITHUB_OUTPUT. */
export function actionOutputs(folder: string, stepOutputs: Readonly<Record<string, string>>): Record<string, string | undefined> {
  const outputs: Record<string, string | undefined> = {};
  for (const [name, { value }] of Object.entries(readAction(folder).outputs ?? {})) {
    const reference = /^\$\{\{\s*steps\.[\w-]+\.outputs\.([\w-]+)\s*\}\}$/.exec(value);
    assert.ok(reference !== null, `output ${name}: ${value}`);
    outputs[name] = stepOutputs[reference[1]!];
  }
  return outputs;
}

/** readGithubFile reads a GITHUB_ENV or GITHUB_OUTPUT file as the runner does (`name=value` lines, `name<<DELIMITER` blocks). */
export function readGithubFile(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]!);
      values[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return values;
}
