/**
 * The kubeconfig `fogbank start` writes next to its data (server and admin credentials).
 */
import type { BannerTls } from '../../core/service.ts';

/** KUBECONFIG_FILE_NAME is the file name under the data directory. */
export const KUBECONFIG_FILE_NAME = 'kubeconfig';

/** KubeconfigTls is the HTTPS side of the kubeconfig: the address and what to trust, and the admin's client certificate if there is one. */
export interface KubeconfigTls extends BannerTls {
  readonly httpsUrl: string;
}

/**
 * kubeconfigText renders a kubeconfig. Without `tls` it has one plain-HTTP cluster, one user and
 * a current context: the token is both the user's `token` (sent by clients such as client-node)
 * and the password in the server URL, because kubectl sends no bearer token over plain HTTP (see
 * cluster-auth.ts). With `tls` the current context `NAME` is HTTPS with the CA and the admin
 * token, as on a real cluster; `NAME-cert` is HTTPS with the admin's client certificate, as kind
 * and envtest write theirs; `NAME-http` is the plain-HTTP one.
 */
export function kubeconfigText(server: string, token: string, name = 'fogbank', tls?: KubeconfigTls): string {
  const url = new URL(server);
  if (url.protocol === 'http:') {
    url.username = name;
    url.password = token;
  }
  server = url.toString().replace(/\/$/, '');
  const httpCluster = [
    '  cluster:',
    `    server: ${server}`,
    // client-node refuses http:// servers unless TLS verification is (vacuously) skipped.
    ...(server.startsWith('http:') ? ['    insecure-skip-tls-verify: true'] : []),
  ];
  const tokenUser = [`- name: ${name}-admin`, '  user:', `    token: ${JSON.stringify(token)}`];
  const context = (contextName: string, cluster: string, user: string) => [
    `- name: ${contextName}`,
    '  context:',
    `    cluster: ${cluster}`,
    `    user: ${user}`,
    '    namespace: default',
  ];
  if (tls === undefined) {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: ${name}`,
      ...httpCluster,
      'users:',
      ...tokenUser,
      'contexts:',
      ...context(name, name, `${name}-admin`),
      `current-context: ${name}`,
      '',
    ].join('\n');
  }
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const certificate = tls.adminCertificate;
  return [
    'apiVersion: v1',
    'kind: Config',
    'preferences: {}',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${tls.httpsUrl}`,
    `    certificate-authority-data: ${base64(tls.trust)}`,
    `- name: ${name}-http`,
    ...httpCluster,
    'users:',
    ...tokenUser,
    ...(certificate === undefined
      ? []
      : [
          `- name: ${name}-admin-cert`,
          '  user:',
          `    client-certificate-data: ${base64(certificate.certificate)}`,
          `    client-key-data: ${base64(certificate.key)}`,
        ]),
    'contexts:',
    ...context(name, name, `${name}-admin`),
    ...(certificate === undefined ? [] : context(`${name}-cert`, name, `${name}-admin-cert`)),
    ...context(`${name}-http`, `${name}-http`, `${name}-admin`),
    `current-context: ${name}`,
    '',
  ].join('\n');
}
