// The collect action's step (collect/action.yml), for a job's `if: failure()` (or `always()`):
// the evidence of what the job asked of fogbank, written to a folder for actions/upload-artifact:
// the request journal (requests.json), the whole state (fogbank.snapshot) and the server's log
// (fogbank.log); then fogbank is stopped (SIGTERM: it finishes requests and exits 0).
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { input, setOutputs } from './github.mjs';

const temp = process.env.RUNNER_TEMP || process.env.TMPDIR || '/tmp';
const folder = resolve(input('path', join(temp, 'fogbank-diagnostics')));
const url = process.env.FOGBANK_URL;
const token = process.env.FOGBANK_TOKEN;
if (!url || !token) throw new Error('FOGBANK_URL and FOGBANK_TOKEN are not set: run the fogbank action earlier in the job');
mkdirSync(folder, { recursive: true });
const headers = { authorization: `Bearer ${token}` };
const problems = [];

/** save writes what GET path answers to a file of the folder; a failure is reported, not fatal (the log is still copied). */
async function save(path, file) {
  try {
    const answer = await fetch(`${url}${path}`, { headers });
    if (!answer.ok) throw new Error(`${answer.status} ${await answer.text()}`);
    writeFileSync(join(folder, file), Buffer.from(await answer.arrayBuffer()));
  } catch (error) {
    problems.push(`GET ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

await save('/_fogbank/requests', 'requests.json');
await save('/_fogbank/snapshot', 'fogbank.snapshot');
if (input('stop', 'true') === 'true' && process.env.FOGBANK_PID) {
  const pid = Number(process.env.FOGBANK_PID);
  try {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
  } catch {
    // Already gone.
  }
}
const log = process.env.FOGBANK_LOG;
if (log && existsSync(log)) copyFileSync(log, join(folder, 'fogbank.log'));
else problems.push('no server log');
setOutputs({ path: folder });
console.log(`fogbank's journal, snapshot and log: ${folder}`);
for (const problem of problems) console.log(`::warning::fogbank collect: ${problem}`);

/** alive says whether a process still runs. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
