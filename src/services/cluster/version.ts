/** SERVED_VERSION is the Kubernetes version fogbank's cluster API answers as (kubectl 1.32 is the reference client). */
export const SERVED_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0' } as const;
