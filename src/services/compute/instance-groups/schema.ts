import { PEnum, PMessage } from '../shared/proto-schema.ts';

/** ListInstancesSchema is InstanceGroupsListInstancesRequest (RegionInstanceGroupsListInstancesRequest has the same field). */
export const ListInstancesSchema = PMessage('InstanceGroupsListInstancesRequest', {
  instanceState: PEnum('InstanceGroupsListInstancesRequest.InstanceState', ['ALL', 'RUNNING']),
});
