/**
 * The kubeconfig `fogbank start` writes next to its data (server and admin token), and the
 * banner lines that tell the user how to point kubectl at it.
 */

/** KUBECONFIG_FILE_NAME is the file name under the data directory. */
export const KUBECONFIG_FILE_NAME = 'kubeconfig';

/** kubeconfigText renders a kubeconfig with one cluster, one user (the token) and a current context. */
export function kubeconfigText(server: string, token: string, name = 'fogbank'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}`,
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

/** clusterBannerLines are the start-up lines for the cluster API (printed next to the gcloud ones). */
export function clusterBannerLines(kubeconfigPath: string): string[] {
  return [`export KUBECONFIG=${kubeconfigPath}`];
}
