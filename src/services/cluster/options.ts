/** The cluster family's settings: its options (ClusterOptions) and the flag they read (core/family-options.ts): how long Events live. */
import { type FamilyOption, OptionError } from '../../core/family-options.ts';
import type { YamlBodyOptions } from '../../core/yaml-body.ts';
import { parseDuration } from '../../lib/duration.ts';
import type { WatchSettings } from './apimachinery/watch.ts';

/** DEFAULT_EVENT_TTL_SECONDS is how long an event lives after its last write (the real `--event-ttl` default: 1h). */
export const DEFAULT_EVENT_TTL_SECONDS = 3600;

/** EVENT_TTL_OPTION is `--event-ttl` (start() option `eventTtlSeconds`), kube-apiserver's flag of the same name. */
export const EVENT_TTL_OPTION: FamilyOption<number> = {
  key: 'eventTtlSeconds',
  flag: 'event-ttl',
  value: 'DURATION',
  default: '1h',
  help: 'how long cluster API Events live after their last write (e.g. 30m, 1h30m)',
  parse(text) {
    const seconds = parseDuration(text);
    if (seconds === undefined || seconds === 0) throw new OptionError(`--event-ttl must be a duration such as 1h, 30m or 90s, not '${text}'`);
    return seconds;
  },
  accepts: (value): value is number => Number.isSafeInteger(value) && (value as number) > 0,
};

/** ClusterStartOptions are the cluster family's start() options. */
export interface ClusterStartOptions {
  /** How long cluster API events live, in seconds (default one hour). */
  readonly eventTtlSeconds?: number;
}

/** ClusterOptions configure the family (createClusterService in index.ts; register.ts reads them, passed in). */
export interface ClusterOptions {
  /** The `{api_domain}` of group names (default `k8s.io`); both spellings are accepted. */
  readonly apiDomain?: string;
  /** How long events live, in seconds; when absent, `--event-ttl` (EVENT_TTL_OPTION) or its default. */
  readonly eventTtlSeconds?: number;
  readonly watch?: Partial<WatchSettings>;
  /** Whether the default RBAC policy is reconciled at start (default true, as on a real cluster). */
  readonly bootstrapPolicy?: boolean;
  /** How YAML bodies are decoded off the event loop (core/yaml-body.ts); tests shrink the deadline. */
  readonly yamlBodies?: YamlBodyOptions;
}
