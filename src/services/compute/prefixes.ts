/** COMPUTE_PREFIX is where the compute API lives; requests without it are served too (an override with no path). */
export const COMPUTE_PREFIX = '/compute/v1';
