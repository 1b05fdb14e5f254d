/** DIRECTORY_PREFIX is the Discovery service's own address, as on www.googleapis.com. */
export const DIRECTORY_PREFIX = '/discovery/v1';

/** HOST_DISCOVERY_PREFIX is the per-API address (`https://gmail.googleapis.com/$discovery/rest?version=v1`). */
export const HOST_DISCOVERY_PREFIX = '/$discovery';
