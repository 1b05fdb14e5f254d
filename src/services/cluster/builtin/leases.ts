/**
 * coordination.k8s.io/v1 Lease behaviour: the spec rules of upstream
 * `pkg/apis/coordination/validation` and the `kubectl get leases` columns. Leader election with
 * client-go or client-node works through the generic get/create/update and its resourceVersion checks.
 */
import { invalid, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { recordAt } from '../resources/pod-spec.ts';

/** leaseBehaviour is Lease's part of the generic strategy. */
export const leaseBehaviour: KindBehaviour = {
  validate(lease) {
    const spec = recordAt(lease, 'spec');
    const errors: FieldError[] = [];
    const duration = spec?.['leaseDurationSeconds'];
    if (typeof duration === 'number' && duration <= 0) errors.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
    const transitions = spec?.['leaseTransitions'];
    if (typeof transitions === 'number' && transitions < 0) errors.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
    return errors;
  },
  tableColumns: [NAME_COLUMN, column('Holder', 'The holder of the lease'), AGE_COLUMN],
  tableRow: (lease, now) => [
    lease.metadata.name ?? '',
    String(recordAt(lease, 'spec')?.['holderIdentity'] ?? ''),
    ageSince(lease.metadata.creationTimestamp, now),
  ],
};
