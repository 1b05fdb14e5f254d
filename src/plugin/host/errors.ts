/** HostError is a problem with the host's own input (arguments, descriptor set); exit 1. */
export class HostError extends Error {
  override readonly name = 'HostError';
}
