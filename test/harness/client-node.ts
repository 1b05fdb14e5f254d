// @kubernetes/client-node pointed at one fogbank, as the end-to-end tests drive it.
import { KubeConfig } from '@kubernetes/client-node';

/** kubeConfigFor is a KubeConfig whose one context reaches `server` with the bearer `token`. */
export function kubeConfigFor(server: string, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'fogbank', server, skipTLSVerify: true }],
    users: [{ name: 'admin', token }],
    contexts: [{ name: 'fogbank', cluster: 'fogbank', user: 'admin' }],
    currentContext: 'fogbank',
  });
  return config;
}
