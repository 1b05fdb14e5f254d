import type { ServiceDefinition } from '../core/service.ts';
import { clusterService } from './cluster/index.ts';
import { computeService } from './compute/index.ts';
import { discoveryService } from './discovery/index.ts';
import { mailService } from './mail/index.ts';
import { publisherService } from './publisher/index.ts';

/** API_FAMILIES are the families that serve an API; adding one is a folder plus a line here. */
const API_FAMILIES: readonly ServiceDefinition[] = [computeService, clusterService, mailService, publisherService];

/** SERVICES lists every family fogbank serves: the API families, then the Discovery service describing theirs. */
export const SERVICES: readonly ServiceDefinition[] = [...API_FAMILIES, discoveryService(API_FAMILIES)];
