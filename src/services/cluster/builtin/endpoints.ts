/**
 * v1 Endpoints and discovery.k8s.io/v1 EndpointSlice tables, as the apiserver prints them
 * (upstream `pkg/printers/internalversion/printers.go` formatEndpoints, formatDiscoveryPorts,
 * formatDiscoveryEndpoints): at most three entries, then `+ N more...`.
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { listOf } from '../resources/pod-spec.ts';

const MAX_LISTED = 3;

/** listed joins the first three entries of `count`, `+ N more...` past them. */
function listed(list: readonly string[], count: number, empty: string): string {
  const text = list.join(',');
  if (count > list.length) return `${text} + ${count - MAX_LISTED} more...`;
  return text === '' ? empty : text;
}

/** formatEndpoints is the `Endpoints` cell: ready addresses with each port (`ip:port`), or bare IPs for a subset without ports. */
export function formatEndpoints(endpoints: BuiltinObject): string {
  const subsets = listOf(endpoints['subsets']);
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = listOf(subset['addresses']).map((address) => String(address['ip'] ?? ''));
    const ports = listOf(subset['ports']);
    const hostPorts = ports.length === 0 ? addresses : ports.flatMap((port) => addresses.map((ip) => (ip.includes(':') ? `[${ip}]` : ip) + `:${port['port']}`));
    count += hostPorts.length;
    for (const entry of hostPorts) if (list.length < MAX_LISTED) list.push(entry);
  }
  // Subsets holding only not-ready addresses print as an empty cell.
  return count > list.length ? `${list.join(',')} + ${count - MAX_LISTED} more...` : list.join(',');
}

/** endpointsBehaviour is v1 Endpoints' table. */
export const endpointsBehaviour: KindBehaviour = {
  tableColumns: [
    NAME_COLUMN,
    column(
      'Endpoints',
      'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.',
    ),
    AGE_COLUMN,
  ],
  tableRow: (endpoints, now) => [endpoints.metadata.name ?? '', formatEndpoints(endpoints), ageSince(endpoints.metadata.creationTimestamp, now)],
};

/** endpointSliceBehaviour is discovery.k8s.io/v1 EndpointSlice's table. */
export const endpointSliceBehaviour: KindBehaviour = {
  tableColumns: [
    NAME_COLUMN,
    column(
      'AddressType',
      'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.',
    ),
    column(
      'Ports',
      'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
    ),
    column('Endpoints', 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.'),
    AGE_COLUMN,
  ],
  tableRow(slice, now) {
    const ports = listOf(slice['ports']).map((port) =>
      typeof port['port'] === 'number' ? String(port['port']) : typeof port['name'] === 'string' ? port['name'] : '*',
    );
    const addresses = listOf(slice['endpoints']).flatMap((endpoint) => (Array.isArray(endpoint['addresses']) ? endpoint['addresses'].map(String) : []));
    return [
      slice.metadata.name ?? '',
      String(slice['addressType'] ?? ''),
      listed(ports.slice(0, MAX_LISTED), ports.length, '<unset>'),
      listed(addresses.slice(0, MAX_LISTED), addresses.length, '<unset>'),
      ageSince(slice.metadata.creationTimestamp, now),
    ];
  },
};
