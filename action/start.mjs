// The setup action's step (action.yml): install fogbank from npm (or use one already installed),
// start it in the background for the rest of the job, wait until it serves, and point the job's
// clients at it: KUBECONFIG, gcloud's overrides, FOGBANK_URL and FOGBANK_TOKEN, as environment
// for later steps and as outputs. The collect action (collect/action.yml) reads what it leaves.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportEnv, input, mask, setOutputs } from './github.mjs';

const temp = process.env.RUNNER_TEMP || process.env.TMPDIR || '/tmp';
const home = resolve(input('home', join(temp, 'fogbank')));
const dataDir = join(home, 'data');
const log = join(home, 'fogbank.log');
const port = input('port', '8780');
const token = input('admin-token', `fogbank-${randomBytes(16).toString('hex')}`);
const timeoutSeconds = Number(input('ready-timeout', '60'));
const extra = input('args').split(/\s+/).filter((word) => word !== '');
mkdirSync(dataDir, { recursive: true });
mask(token);

/** fogbankCommand is the installed executable: the `fogbank` input, or the `package` input installed with npm. */
function fogbankCommand() {
  const given = input('fogbank');
  if (given !== '') return given;
  const prefix = join(home, 'cli');
  const spec = input('package', 'fogbank');
  console.log(`installing ${spec}`);
  const npm = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--allow-scripts=better-sqlite3,koffi', spec], { stdio: 'inherit' });
  if (npm.status !== 0) throw new Error(`npm install ${spec} failed (exit ${npm.status})`);
  return join(prefix, 'bin', 'fogbank');
}

const command = fogbankCommand();
// The token goes by the environment (FOGBANK_ADMIN_TOKEN), not the command line other processes can read.
const args = ['start', '--port', port, '--data-dir', dataDir, ...extra];
const out = openSync(log, 'a');
const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, FOGBANK_ADMIN_TOKEN: token } });
child.unref();
console.log(`fogbank (pid ${child.pid}) starting: ${command} ${args.join(' ')}; log ${log}`);

let exited;
child.once('exit', (code, signal) => (exited = signal ?? code));
const deadline = Date.now() + timeoutSeconds * 1000;
let url;
while (url === undefined) {
  const listening = existsSync(log) ? /listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8')) : null;
  if (listening !== null) url = listening[1];
  else if (exited !== undefined || Date.now() > deadline) {
    console.log(readFileSync(log, 'utf8'));
    throw new Error(exited !== undefined ? `fogbank exited (${exited}) before serving` : `fogbank did not serve within ${timeoutSeconds} s`);
  } else await sleep(100);
}
const health = await fetch(`${url}/healthz`);
if (!health.ok) throw new Error(`${url}/healthz answered ${health.status}`);

// gcloud reads the token from a file: fogbank keeps one in its data directory only for a token it made.
const tokenFile = join(home, 'admin-token');
writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
const values = {
  url,
  token,
  kubeconfig: join(dataDir, 'kubeconfig'),
  'token-file': tokenFile,
  'data-dir': dataDir,
  log,
  pid: String(child.pid),
};
setOutputs(values);
exportEnv({
  FOGBANK_URL: url,
  FOGBANK_TOKEN: token,
  KUBECONFIG: values.kubeconfig,
  CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE: `${url}/compute/v1/`,
  CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: values['token-file'],
  FOGBANK_LOG: log,
  FOGBANK_PID: values.pid,
});
console.log(`fogbank serves ${url}`);
