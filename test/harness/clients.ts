// The real clients the end-to-end tests drive, found for the platform at hand. gcloud and kubectl
// come with the machine; protoc (two versions) and buf come from devDependencies; the Python and
// Ruby clients are Debian's packages (.ci/run installs them when missing).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { REPO } from './paths.ts';

/** Client names one external program a test drives. */
export type Client = 'gcloud' | 'kubectl' | 'protoc' | 'protoc-oldest' | 'buf' | 'python3-kubernetes' | 'ruby-kubeclient' | 'python3-googleapi';

/** INSTALL says, per client, what to install when it is missing. */
const INSTALL: Readonly<Record<Client, string>> = {
  gcloud: 'install the Google Cloud CLI (Debian: apt-get install google-cloud-cli; see https://cloud.google.com/sdk/docs/install)',
  kubectl: 'install kubectl (Debian: apt-get install kubectl; see https://kubernetes.io/docs/tasks/tools/)',
  protoc: 'run npm ci (protoc 36.2 is the devDependency protoc-newest)',
  'protoc-oldest': 'run npm ci (protoc 3.21.0 is the devDependency protoc-oldest)',
  buf: 'run npm ci (buf is the devDependency @bufbuild/buf)',
  'python3-kubernetes': "install Debian's Python Kubernetes client (apt-get install python3-kubernetes; the tests run /usr/bin/python3, not a pyenv one)",
  'ruby-kubeclient': "install Debian's Ruby Kubernetes client (apt-get install ruby-kubeclient)",
  'python3-googleapi': "install Debian's google-api-python-client for /usr/bin/python3 (apt-get install python3-googleapi; .ci/run does)",
};

/**
 * debianLibrary finds a Debian-packaged client library and the Debian interpreter that loads it
 * (the interpreter's path is what locateClient returns). File checks only: importing the Python
 * client takes seconds, and every suite asks at load time.
 */
function debianLibrary(interpreter: string, library: string): string | undefined {
  return existsSync(interpreter) && existsSync(library) ? interpreter : undefined;
}

/** rubyGem is the Debian path of a gem's main file (rubygems-integration), any version. */
function rubyGem(name: string): string {
  const gems = '/usr/share/rubygems-integration/all/gems';
  const dir = existsSync(gems) ? readdirSync(gems).find((entry) => entry.startsWith(`${name}-`)) : undefined;
  return dir === undefined ? `/usr/lib/ruby/vendor_ruby/${name}.rb` : join(gems, dir, 'lib', `${name}.rb`);
}

/** DEBIAN_PYTHON is Debian's own interpreter: Debian's python3-* packages are importable there, not in a pyenv python3 on PATH. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

let debianGoogleApi: string | null | undefined;

/** debianGoogleApiPython returns DEBIAN_PYTHON when it imports the client, its credentials and its HTTP adapter, else undefined (checked once). */
function debianGoogleApiPython(): string | undefined {
  if (debianGoogleApi === undefined) {
    try {
      execFileSync(DEBIAN_PYTHON, ['-c', 'import googleapiclient.discovery, google.oauth2.credentials, google_auth_httplib2'], { stdio: 'ignore' });
      debianGoogleApi = DEBIAN_PYTHON;
    } catch {
      debianGoogleApi = null;
    }
  }
  return debianGoogleApi ?? undefined;
}

/** ProtocAsset is one entry of an npm protoc package's assets.json. */
interface ProtocAsset {
  readonly platform: string;
  readonly arch: string;
  readonly executable: string;
}

/** npmProtoc finds the protoc executable an npm `protoc` package ships for this platform, as its own launcher does. */
function npmProtoc(packageDir: string): string | undefined {
  const assetsFile = join(REPO, 'node_modules', packageDir, 'assets.json');
  if (!existsSync(assetsFile)) return undefined;
  const assets = JSON.parse(readFileSync(assetsFile, 'utf8')) as ProtocAsset[];
  const asset = assets.find((a) => a.platform === process.platform && a.arch === process.arch);
  if (asset === undefined) return undefined;
  const path = join(REPO, 'node_modules', packageDir, 'bin', asset.executable);
  return existsSync(path) ? path : undefined;
}

/** onPath finds an executable by name on PATH. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** locateClient returns the path of a client, or undefined when it is not installed. */
export function locateClient(client: Client): string | undefined {
  switch (client) {
    case 'gcloud':
    case 'kubectl':
      return onPath(client);
    case 'protoc':
      return npmProtoc('protoc-newest');
    case 'protoc-oldest':
      return npmProtoc('protoc-oldest');
    case 'buf': {
      const path = join(REPO, 'node_modules/.bin/buf');
      return existsSync(path) ? path : undefined;
    }
    case 'python3-kubernetes':
      return debianLibrary('/usr/bin/python3', '/usr/lib/python3/dist-packages/kubernetes/__init__.py');
    case 'ruby-kubeclient':
      return debianLibrary('/usr/bin/ruby', rubyGem('kubeclient'));
    case 'python3-googleapi':
      return debianGoogleApiPython();
  }
}

/** missingClientMessage is the one line naming what to install for a missing client. */
export function missingClientMessage(client: Client): string {
  return `${client} is not installed: ${INSTALL[client]}`;
}

/** ALL_CLIENTS lists every client the suite drives. */
export const ALL_CLIENTS: readonly Client[] = [
  'gcloud',
  'kubectl',
  'protoc',
  'protoc-oldest',
  'buf',
  'python3-kubernetes',
  'ruby-kubeclient',
  'python3-googleapi',
];

/**
 * clientPath returns a client's path or throws the one-line install message. Test files call
 * it through `skipUnless` at load time, so a missing client is reported once, by the preflight
 * test, rather than as a failure per test.
 */
export function clientPath(client: Client): string {
  const path = locateClient(client);
  if (path === undefined) throw new Error(missingClientMessage(client));
  return path;
}

/**
 * skipUnless is the `skip` option for a suite that needs clients: false when all are there,
 * otherwise the reason, which points at the preflight test that fails for it.
 */
export function skipUnless(...clients: Client[]): string | false {
  const missing = clients.filter((client) => locateClient(client) === undefined);
  return missing.length === 0 ? false : `needs ${missing.join(', ')} (see the failing preflight test)`;
}
