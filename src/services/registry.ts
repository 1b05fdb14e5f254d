import type { ServiceDefinition } from '../core/service.ts';
import { clusterService } from './cluster/index.ts';
import { computeService } from './compute/index.ts';
import { mailService } from './mail/index.ts';
import { publisherService } from './publisher/index.ts';

/** SERVICES lists every API family fogbank serves; adding one is a folder plus a line here. */
export const SERVICES: readonly ServiceDefinition[] = [computeService, clusterService, mailService, publisherService];
