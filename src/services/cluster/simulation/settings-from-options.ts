/** The simulation's settings as the family reads them: ClusterOptions first, then the `--workloads`, `--nodes`, `--pod-ready-delay`, `--job-duration` values, then their defaults. */
import { type FamilyOptionValues, optionValue } from '../../../core/family-options.ts';
import { type ClusterOptions, JOB_DURATION_OPTION, NODES_OPTION, POD_READY_DELAY_OPTION, WORKLOADS_OPTION } from '../options.ts';
import type { SimulationSettings } from './settings.ts';

/** simulationSettings is `{ workloads }` for the runtime with `simulate`, `{}` otherwise. */
export function simulationSettings(options: ClusterOptions, values: FamilyOptionValues | undefined): { workloads?: SimulationSettings } {
  const mode = options.workloads ?? optionValue(WORKLOADS_OPTION, values) ?? 'none';
  if (mode !== 'simulate') return {};
  return {
    workloads: {
      nodes: options.nodes ?? optionValue(NODES_OPTION, values) ?? 1,
      podReadyDelayMs: options.podReadyDelayMs ?? optionValue(POD_READY_DELAY_OPTION, values) ?? 1000,
      jobDurationMs: options.jobDurationMs ?? optionValue(JOB_DURATION_OPTION, values) ?? 1000,
    },
  };
}
