/** Starts the workload simulation for the runtime (its own chunk: loaded only with `--workloads simulate`). */
import type { ServiceContext } from '../../../core/service.ts';
import type { GenericRegistry } from '../apimachinery/registry.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import { ClusterAccess } from './cluster-access.ts';
import type { SimulationSettings } from './settings.ts';
import { WorkloadSimulation } from './simulation.ts';

/** startWorkloadSimulation builds the simulation over the registry and starts it. */
export async function startWorkloadSimulation(
  context: ServiceContext,
  registry: GenericRegistry,
  views: readonly AnyView[],
  settings: SimulationSettings,
): Promise<WorkloadSimulation> {
  const access = new ClusterAccess(context.store, registry, views, context.ids, () => context.clock.now());
  const simulation = new WorkloadSimulation(access, context.store, context.timers, settings);
  await simulation.start();
  return simulation;
}
