// What a GitHub Actions step reads and writes (docs: workflow-commands): its inputs as INPUT_<NAME>
// variables (the runner's form for JavaScript actions; action.yml maps a composite's inputs to the
// same names), and the GITHUB_ENV / GITHUB_OUTPUT files that later steps and the workflow read.
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/** input is an input's value (the runner's INPUT_ + name upper-cased, spaces as _), or `fallback` when empty. */
export function input(name, fallback = '') {
  const value = process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`]?.trim() ?? '';
  return value === '' ? fallback : value;
}

/** append writes `name=value` lines to a GITHUB_ENV or GITHUB_OUTPUT file (a value with a newline as a heredoc). */
function append(file, values) {
  if (file === undefined || file === '') throw new Error('not run by a GitHub runner: GITHUB_ENV and GITHUB_OUTPUT are not set');
  for (const [name, value] of Object.entries(values)) {
    if (value.includes('\n')) {
      const delimiter = `fogbank_${randomBytes(8).toString('hex')}`;
      appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
    } else appendFileSync(file, `${name}=${value}\n`);
  }
}

/** exportEnv sets variables for the job's later steps. */
export function exportEnv(values) {
  append(process.env.GITHUB_ENV, values);
}

/** setOutputs sets the step's outputs. */
export function setOutputs(values) {
  append(process.env.GITHUB_OUTPUT, values);
}

/** mask keeps a secret out of the job's log. */
export function mask(secret) {
  console.log(`::add-mask::${secret}`);
}
