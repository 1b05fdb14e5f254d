import { invalidFieldValue } from '../shared/errors.ts';
import type { SchedulingInput } from './schema.ts';

/** HOST_ERROR_TIMEOUT_RANGE bounds scheduling.hostErrorTimeoutSeconds. */
export const HOST_ERROR_TIMEOUT_RANGE = [90, 330] as const;

/**
 * normalizeScheduling validates `properties.scheduling` and fills the server defaults:
 * on-host-maintenance MIGRATE and automatic restart for standard VMs; TERMINATE and no restart
 * for preemptible, Spot VMs and VMs with accelerators.
 */
export function normalizeScheduling(scheduling: SchedulingInput, hasAccelerators: boolean, root = 'resource.properties'): Record<string, unknown> {
  const field = `${root}.scheduling`;
  const spot = scheduling.provisioningModel === 'SPOT';
  const preemptible = scheduling.preemptible ?? false;
  const interruptible = preemptible || spot;
  if (interruptible && scheduling.automaticRestart === true) {
    throw invalidFieldValue(`${field}.automaticRestart`, 'true', 'Scheduling must have preemptible be false when AutomaticRestart is true.');
  }
  if (interruptible && scheduling.onHostMaintenance === 'MIGRATE') {
    throw invalidFieldValue(`${field}.onHostMaintenance`, 'MIGRATE', "Scheduling must have preemptible be false when OnHostMaintenance isn't TERMINATE.");
  }
  if (hasAccelerators && scheduling.onHostMaintenance === 'MIGRATE') {
    throw invalidFieldValue(`${field}.onHostMaintenance`, 'MIGRATE', 'Instances with guest accelerators do not support live migration.');
  }
  if (scheduling.maxRunDuration !== undefined && scheduling.terminationTime !== undefined) {
    throw invalidFieldValue(field, '', 'Only one of maxRunDuration and terminationTime may be specified.');
  }
  if (scheduling.terminationTime !== undefined && Number.isNaN(Date.parse(scheduling.terminationTime))) {
    throw invalidFieldValue(`${field}.terminationTime`, scheduling.terminationTime, 'Must be an RFC 3339 timestamp.');
  }
  if (scheduling.instanceTerminationAction !== undefined && !spot && scheduling.maxRunDuration === undefined && scheduling.terminationTime === undefined) {
    throw invalidFieldValue(
      `${field}.instanceTerminationAction`,
      scheduling.instanceTerminationAction,
      'instanceTerminationAction can only be set for Spot VMs or VMs with a run duration.',
    );
  }
  if (scheduling.hostErrorTimeoutSeconds !== undefined) {
    const [min, max] = HOST_ERROR_TIMEOUT_RANGE;
    if (scheduling.hostErrorTimeoutSeconds < min || scheduling.hostErrorTimeoutSeconds > max) {
      throw invalidFieldValue(`${field}.hostErrorTimeoutSeconds`, String(scheduling.hostErrorTimeoutSeconds), `Must be between ${min} and ${max} seconds.`);
    }
  }
  if (scheduling.minNodeCpus !== undefined && scheduling.minNodeCpus < 0) {
    throw invalidFieldValue(`${field}.minNodeCpus`, String(scheduling.minNodeCpus), 'Must be non-negative.');
  }
  (scheduling.nodeAffinities ?? []).forEach((affinity, i) => {
    if (affinity.key === undefined || affinity.key === '') throw invalidFieldValue(`${field}.nodeAffinities[${i}].key`, '', 'A node affinity needs a key.');
  });
  for (const name of ['maxRunDuration', 'localSsdRecoveryTimeout'] as const) {
    const duration = scheduling[name];
    if (duration?.nanos !== undefined && (duration.nanos < 0 || duration.nanos > 999_999_999)) {
      throw invalidFieldValue(`${field}.${name}.nanos`, String(duration.nanos), 'Must be from 0 to 999,999,999.');
    }
  }
  return {
    ...scheduling,
    onHostMaintenance: scheduling.onHostMaintenance ?? (interruptible || hasAccelerators ? 'TERMINATE' : 'MIGRATE'),
    automaticRestart: scheduling.automaticRestart ?? !interruptible,
    preemptible,
    provisioningModel: scheduling.provisioningModel ?? 'STANDARD',
  };
}
