// The real gcloud against one fogbank, in a configuration directory of its own that the harness
// removes (it holds the access token).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientPath } from './clients.ts';
import { removeTempDir, tempDir } from '../../src/testing/temp.ts';

/** GCLOUD_TIMEOUT_MS bounds one gcloud command. */
const GCLOUD_TIMEOUT_MS = 120_000;

/** GcloudResult is what one gcloud command did. */
export interface GcloudResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** gcloudEnv is the environment that points a fresh gcloud configuration at fogbank and keeps gcloud off the network. */
export function gcloudEnv(configDir: string, overrides: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    // gcloud's own temporary files go under the configuration directory, which the harness removes.
    TMPDIR: configDir,
    CLOUDSDK_CONFIG: configDir,
    CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
    CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: 'true',
    CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: 'true',
    CLOUDSDK_CORE_CHECK_GCE_METADATA: 'false',
    ...overrides,
  };
}

/** Gcloud runs the real gcloud against one fogbank. */
export class Gcloud {
  readonly configDir = tempDir('gcloud');
  readonly #binary = clientPath('gcloud');
  readonly #env: NodeJS.ProcessEnv;

  /** The compute endpoint override is `BASE/compute/v1/` unless `computeOverride` gives it verbatim. */
  constructor(baseUrl: string, token: string | undefined, project = 'p', computeOverride = `${baseUrl}/compute/v1/`) {
    const overrides: Record<string, string> = {
      CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE: computeOverride,
      CLOUDSDK_CORE_PROJECT: project,
    };
    if (token === undefined) {
      overrides['CLOUDSDK_AUTH_DISABLE_CREDENTIALS'] = 'true';
    } else {
      const tokenFile = join(this.configDir, 'token');
      writeFileSync(tokenFile, token, { mode: 0o600 });
      overrides['CLOUDSDK_AUTH_ACCESS_TOKEN_FILE'] = tokenFile;
    }
    this.#env = gcloudEnv(this.configDir, overrides);
  }

  /** run executes `gcloud ARGS` and resolves with its exit code and output (it never rejects on a non-zero exit). */
  run(...args: string[]): Promise<GcloudResult> {
    return new Promise((resolve, reject) => {
      execFile(this.#binary, args, { env: this.#env, timeout: GCLOUD_TIMEOUT_MS, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(error);
          return;
        }
        resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
      });
    });
  }

  /** dispose removes the configuration directory and the token in it. */
  dispose(): void {
    removeTempDir(this.configDir);
  }
}
