import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/store.ts';
import type { Authenticator } from './auth.ts';
import type { Clock, Timers } from './clock.ts';
import type { OperationsMode } from './config.ts';
import type { IdSource } from './ids.ts';

/** ServiceContext is everything core hands a service: state, time, ids, identity and options. */
export interface ServiceContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly ids: IdSource;
  readonly auth: Authenticator;
  readonly operations: OperationsMode;
}

/** ServiceHandle lets a service stop its background work when the server shuts down. */
export interface ServiceHandle {
  /** close stops background work (timers, watchers) and wakes anything long-polling. */
  close(): Promise<void>;
}

/**
 * ServiceDefinition is one API family. `register` runs inside its own encapsulated Fastify
 * context, so the family's error serializer and not-found handler apply only to its routes.
 */
export interface ServiceDefinition {
  readonly name: string;
  register(app: FastifyInstance, context: ServiceContext): Promise<ServiceHandle | void>;
}
