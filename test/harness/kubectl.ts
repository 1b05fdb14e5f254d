import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { kubeconfigText } from '../../src/services/cluster/kubeconfig.ts';

/** HttpsServer is what overHttps needs of a running fogbank. */
export interface HttpsServer {
  readonly url: string;
  readonly httpsUrl: string | undefined;
  tlsMaterial(): Promise<{ readonly trust: string } | undefined>;
}

/** KubectlResult is what one kubectl command did. */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** findKubectl locates the real kubectl, or throws loudly: the cluster end-to-end tests need it. */
export function findKubectl(): string {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, 'kubectl');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  throw new Error('kubectl is not installed: the cluster end-to-end tests drive the real kubectl');
}

/** Kubectl runs the real kubectl against one fogbank, with its own kubeconfig and cache in a temp dir. */
export class Kubectl {
  readonly dir = mkdtempSync(join(tmpdir(), 'fogbank-kubectl-'));
  readonly kubeconfig = join(this.dir, 'kubeconfig');
  readonly #binary = findKubectl();

  /** `text` is the kubeconfig to use (default: one plain-HTTP context for `server` with `token`). */
  constructor(server: string, token: string, text = kubeconfigText(server, token)) {
    writeFileSync(this.kubeconfig, text);
  }

  /**
   * overHttps is kubectl as a real cluster's user runs it: an HTTPS context trusting fogbank's CA,
   * with `token` as a bearer token (the kubeconfig's current context).
   */
  static async overHttps(server: HttpsServer, token: string): Promise<Kubectl> {
    const material = await server.tlsMaterial();
    if (server.httpsUrl === undefined || material === undefined) throw new Error('this fogbank serves no HTTPS (started with tls: false?)');
    return new Kubectl(server.url, token, kubeconfigText(server.url, token, 'fogbank', { httpsUrl: server.httpsUrl, trust: material.trust }));
  }

  #args(args: readonly string[]): string[] {
    return ['--kubeconfig', this.kubeconfig, '--cache-dir', join(this.dir, 'cache'), ...args];
  }

  #env(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
    return { PATH: process.env['PATH'], HOME: this.dir, ...extra };
  }

  /** run executes one command to completion (bounded at 60 s), with `input` on its stdin and `env` added to its environment (EDITOR, say). */
  run(args: readonly string[], options: { readonly input?: string; readonly env?: Readonly<Record<string, string>> } = {}): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(this.#binary, this.#args(args), { env: this.#env(options.env), timeout: 60_000 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1;
        resolve({ code, stdout, stderr });
      });
      if (options.input !== undefined) child.stdin!.end(options.input);
    });
  }

  /** start runs a long command (get -w) whose output is read while it runs. */
  start(args: readonly string[]): { child: ChildProcess; output: () => string } {
    const child = spawn(this.#binary, this.#args(args), { env: this.#env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output };
  }

  /** cleanup removes the temp dir. */
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
