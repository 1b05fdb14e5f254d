import type { ServiceDefinition } from '../core/service.ts';
import { clusterService } from './cluster/index.ts';
import type { ClusterStartOptions } from './cluster/options.ts';
import { computeService } from './compute/index.ts';
import { controlService } from './control/index.ts';
import { discoveryService } from './discovery/index.ts';
import { mailService } from './mail/index.ts';
import type { MailStartOptions } from './mail/options.ts';
import { publisherService } from './publisher/index.ts';
import type { PublisherStartOptions } from './publisher/options.ts';

/** API_FAMILIES are the families that serve an API; adding one is a folder plus a line here (and its start() options in FamilyStartOptions, when it has any). */
const API_FAMILIES: readonly ServiceDefinition[] = [computeService, clusterService, mailService, publisherService];

/** SERVICES lists every family fogbank serves: the API families, the Discovery service describing theirs, and the admin API (test controls). */
export const SERVICES: readonly ServiceDefinition[] = [...API_FAMILIES, discoveryService(API_FAMILIES), controlService(API_FAMILIES)];

/** FamilyStartOptions are the families' own start() options, each declared with its flag in the family's `options.ts`. */
export interface FamilyStartOptions extends ClusterStartOptions, MailStartOptions, PublisherStartOptions {}
