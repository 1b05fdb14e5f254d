// The suite's one check that every client the end-to-end tests drive is installed. A missing
// client fails here, once, with a line naming what to install (Debian's python3-googleapi is
// looked for in /usr/bin/python3, where Debian installs it); the suites that need it skip.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALL_CLIENTS, locateClient, missingClientMessage } from './harness/clients.ts';

test('every client the end-to-end tests drive is installed', () => {
  const missing = ALL_CLIENTS.filter((client) => locateClient(client) === undefined).map(missingClientMessage);
  assert.ok(missing.length === 0, missing.join('\n'));
});

test('a missing Kubernetes client is named with the Debian package that provides it', () => {
  assert.match(missingClientMessage('python3-kubernetes'), /^python3-kubernetes is not installed: .*apt-get install python3-kubernetes.*\/usr\/bin\/python3/);
  assert.match(missingClientMessage('ruby-kubeclient'), /^ruby-kubeclient is not installed: .*apt-get install ruby-kubeclient/);
});

// The container image's test (test/e2e/container-image.test.ts) builds and runs the image with
// Debian's podman, runc and debootstrap (.ci/run installs them): a machine where they cannot run
// fails here, by name, never a silent skip.
test('podman, runc and debootstrap run, for the container image', async () => {
  const { runToEnd } = await import('./harness/process.ts');
  const { podman } = await import('./harness/podman.ts');
  for (const [command, args] of [
    ['runc', ['--version']],
    ['debootstrap', ['--version']],
  ] as const) {
    const r = await runToEnd(command, args).catch((error: unknown) => ({ exit: -1, stdout: '', stderr: String(error) }));
    assert.equal(r.exit, 0, `${command} cannot run (apt-get install podman runc debootstrap): ${r.stderr}`);
  }
  const info = await podman(['info', '--format', '{{.Host.OCIRuntime.Name}} {{.Host.CgroupManager}}'], { allowFailure: true }).catch((error: unknown) => ({
    exit: -1,
    stdout: '',
    stderr: String(error),
  }));
  assert.equal(info.exit, 0, `podman cannot run (apt-get install podman runc): ${info.stderr}`);
  assert.equal(info.stdout.trim(), 'runc cgroupfs');
});

// The preconfigured WAF sets run on Debian's libmodsecurity3 and modsecurity-crs (issue 39): a
// missing engine fails here, loudly, never as a WAF that silently matches nothing.
test('the WAF engine (libmodsecurity3 with the OWASP Core Rule Set) runs', async () => {
  const { wafEngineProblem } = await import('../src/services/compute/public-evaluation.ts');
  const problem = await wafEngineProblem();
  assert.equal(problem, undefined, `${problem}: apt-get install libmodsecurity3 modsecurity-crs`);
});
