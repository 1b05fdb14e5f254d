import type { UpdateAction } from './rollout.ts';

/** REFRESHABLE are the template properties an instance takes without stopping: metadata, labels, tags, the description. */
const REFRESHABLE = new Set(['metadata', 'labels', 'tags', 'description']);

/** RESTARTABLE are the properties an instance takes by a stop and start: its machine type and how it is scheduled and run. */
const RESTARTABLE = new Set([
  'machineType',
  'scheduling',
  'minCpuPlatform',
  'guestAccelerators',
  'serviceAccounts',
  'shieldedInstanceConfig',
  'advancedMachineFeatures',
  'confidentialInstanceConfig',
  'canIpForward',
  'resourcePolicies',
]);

/**
 * neededAction is the least an instance made from a template with `from` properties needs to
 * take the `to` properties (the updater's REFRESH, RESTART, REPLACE): nothing when they are the
 * same, REFRESH when only metadata, labels or tags differ, RESTART when the machine type or the
 * scheduling does, REPLACE for anything else (disks, network interfaces, the image).
 */
export function neededAction(from: Readonly<Record<string, unknown>>, to: Readonly<Record<string, unknown>>): UpdateAction {
  let action: UpdateAction = 'NONE';
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (JSON.stringify(from[key]) === JSON.stringify(to[key])) continue;
    if (REFRESHABLE.has(key)) action = action === 'RESTART' ? action : 'REFRESH';
    else if (RESTARTABLE.has(key)) action = 'RESTART';
    else return 'REPLACE';
  }
  return action;
}
