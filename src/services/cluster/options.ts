/** The cluster family's settings (core/family-options.ts): how long Events live. */
import { type FamilyOption, OptionError } from '../../core/family-options.ts';
import { parseDuration } from '../../lib/duration.ts';

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
