/** The cluster family's settings: its options (ClusterOptions) and the flag they read (core/family-options.ts): how long Events live. */
import { type FamilyOption, OptionError } from '../../core/family-options.ts';
import type { YamlBodyOptions } from '../../core/yaml-body.ts';
import { parseDuration, parseGoDuration } from '../../lib/duration.ts';
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

/** WorkloadMode is what happens after a workload is written: `none` (envtest's behaviour: nothing) or `simulate` (kwok's: fake Nodes, a scheduler, controllers, Pods that run). */
export type WorkloadMode = 'none' | 'simulate';

/** WORKLOADS_OPTION is `--workloads none|simulate` (start() option `workloads`). */
export const WORKLOADS_OPTION: FamilyOption<WorkloadMode> = {
  key: 'workloads',
  flag: 'workloads',
  value: 'none|simulate',
  default: 'none',
  help: 'simulate: fake Nodes, a scheduler and the workload controllers run Pods on the clock (docs/cluster.md)',
  parse(text) {
    if (text !== 'none' && text !== 'simulate') throw new OptionError(`--workloads must be none or simulate, not '${text}'`);
    return text;
  },
  accepts: (value): value is WorkloadMode => value === 'none' || value === 'simulate',
};

/** NODES_OPTION is `--nodes N` (start() option `nodes`): how many fake Nodes the simulation keeps. */
export const NODES_OPTION: FamilyOption<number> = {
  key: 'nodes',
  flag: 'nodes',
  value: 'N',
  default: '1',
  help: 'how many fake Nodes --workloads simulate keeps (1-1000)',
  parse(text) {
    const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!NODES_OPTION.accepts(count)) throw new OptionError(`--nodes must be a whole number from 1 to 1000, not '${text}'`);
    return count;
  },
  accepts: (value): value is number => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 1000,
};

/** simulationDuration is a Go duration option in milliseconds (`0`, `500ms`, `2s`), the simulation's timings. */
function simulationDuration(key: string, flag: string, fallback: string, help: string): FamilyOption<number> {
  return {
    key,
    flag,
    value: 'DURATION',
    default: fallback,
    help,
    parse(text) {
      const parsed = parseGoDuration(text);
      if ('error' in parsed) throw new OptionError(`--${flag} must be a duration such as 1s or 250ms: ${parsed.error}`);
      return parsed.ms;
    },
    accepts: (value): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0,
  };
}

/** POD_READY_DELAY_OPTION is `--pod-ready-delay` (start() option `podReadyDelayMs`): how long a bound Pod takes to run and be Ready. */
export const POD_READY_DELAY_OPTION = simulationDuration(
  'podReadyDelayMs',
  'pod-ready-delay',
  '1s',
  'with --workloads simulate: how long a bound Pod takes to be Running and Ready',
);

/** JOB_DURATION_OPTION is `--job-duration` (start() option `jobDurationMs`): how long a Job's Pod runs before it succeeds. */
export const JOB_DURATION_OPTION = simulationDuration(
  'jobDurationMs',
  'job-duration',
  '1s',
  "with --workloads simulate: how long a Job's Pod runs before it completes",
);

/** ClusterStartOptions are the cluster family's start() options. */
export interface ClusterStartOptions {
  /** How long cluster API events live, in seconds (default one hour). */
  readonly eventTtlSeconds?: number;
  /** `simulate` runs fake Nodes, a scheduler and the workload controllers (default `none`). */
  readonly workloads?: WorkloadMode;
  /** How many fake Nodes the simulation keeps (default 1). */
  readonly nodes?: number;
  /** How long a bound Pod takes to be Running and Ready, in milliseconds of the clock (default 1000). */
  readonly podReadyDelayMs?: number;
  /** How long a Job's Pod runs before it completes, in milliseconds of the clock (default 1000). */
  readonly jobDurationMs?: number;
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
  /** The workload simulation's settings; when absent, the `--workloads`, `--nodes`, `--pod-ready-delay`, `--job-duration` values or their defaults. */
  readonly workloads?: WorkloadMode;
  readonly nodes?: number;
  readonly podReadyDelayMs?: number;
  readonly jobDurationMs?: number;
}
