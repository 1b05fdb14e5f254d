import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** GcloudResult is what one gcloud command did. */
export interface GcloudResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** findGcloud locates the real gcloud, or throws loudly: the end-to-end tests need the real client. */
export function findGcloud(): string {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, 'gcloud');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  throw new Error('gcloud is not installed: the compute end-to-end tests drive the real Google Cloud CLI (install google-cloud-cli)');
}

/** Gcloud runs the real gcloud against one fogbank, in its own configuration directory. */
export class Gcloud {
  readonly configDir = mkdtempSync(join(tmpdir(), 'fogbank-gcloud-'));
  readonly #binary = findGcloud();
  readonly #env: NodeJS.ProcessEnv;

  constructor(baseUrl: string, token: string | undefined, project = 'p') {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      CLOUDSDK_CONFIG: this.configDir,
      CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE: `${baseUrl}/compute/v1/`,
      CLOUDSDK_CORE_PROJECT: project,
      CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
      CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: 'true',
      CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: 'true',
      CLOUDSDK_CORE_CHECK_GCE_METADATA: 'false',
    };
    if (token === undefined) {
      env['CLOUDSDK_AUTH_DISABLE_CREDENTIALS'] = 'true';
    } else {
      const tokenFile = join(this.configDir, 'token');
      writeFileSync(tokenFile, token);
      env['CLOUDSDK_AUTH_ACCESS_TOKEN_FILE'] = tokenFile;
    }
    this.#env = env;
  }

  /** run executes `gcloud ARGS` and resolves with its exit code and output (it never rejects on a non-zero exit). */
  run(...args: string[]): Promise<GcloudResult> {
    return new Promise((resolve, reject) => {
      execFile(this.#binary, args, { env: this.#env, timeout: 120_000 }, (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(error);
          return;
        }
        resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
      });
    });
  }
}
