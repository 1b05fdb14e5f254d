/**
 * The kubeconfig `fogbank start` writes next to its data (server and admin token).
 */

/** KUBECONFIG_FILE_NAME is the file name under the data directory. */
export const KUBECONFIG_FILE_NAME = 'kubeconfig';

/**
 * kubeconfigText renders a kubeconfig with one cluster, one user and a current context. The
 * token is both the user's `token` (sent by clients such as client-node) and the password in
 * the server URL, because kubectl sends no bearer token over plain HTTP (see cluster-auth.ts).
 */
export function kubeconfigText(server: string, token: string, name = 'fogbank'): string {
  const url = new URL(server);
  if (url.protocol === 'http:') {
    url.username = name;
    url.password = token;
  }
  server = url.toString().replace(/\/$/, '');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}`,
    // client-node refuses http:// servers unless TLS verification is (vacuously) skipped.
    ...(server.startsWith('http:') ? ['    insecure-skip-tls-verify: true'] : []),
    'users:',
    `- name: ${name}-admin`,
    '  user:',
    `    token: ${JSON.stringify(token)}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}-admin`,
    '    namespace: default',
    `current-context: ${name}`,
    '',
  ].join('\n');
}
