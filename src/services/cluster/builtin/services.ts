/**
 * v1 Service behaviour: defaults (type, protocol, targetPort, sessionAffinity, IP families), the
 * port rules users hit (upstream `ValidateService`), immutable cluster IPs, and the `kubectl get
 * services` columns. Cluster IPs and node ports are allocated in builtin/service-allocation.ts,
 * inside the writing transaction.
 */
import { duplicate, invalid, required, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';

function defaults(service: BuiltinObject): void {
  const spec = recordAt(service, 'spec');
  if (spec === undefined) return;
  spec['type'] ??= 'ClusterIP';
  spec['sessionAffinity'] ??= 'None';
  if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
  if (spec['sessionAffinity'] === 'ClientIP') {
    const clientIp = recordAt(spec, 'sessionAffinityConfig', 'clientIP');
    if (clientIp?.['timeoutSeconds'] === undefined) spec['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (spec['type'] === 'LoadBalancer') spec['allocateLoadBalancerNodePorts'] ??= true;
  if (spec['type'] !== 'ExternalName') {
    spec['internalTrafficPolicy'] ??= 'Cluster';
    if (spec['clusterIP'] !== 'None' || spec['selector'] !== undefined) {
      spec['ipFamilies'] ??= ['IPv4'];
      spec['ipFamilyPolicy'] ??= 'SingleStack';
    }
  }
  if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer') spec['externalTrafficPolicy'] ??= 'Cluster';
  for (const port of listOf(spec['ports'])) {
    port['protocol'] ??= 'TCP';
    port['targetPort'] ??= port['port'];
  }
}

function validate(service: BuiltinObject): FieldError[] {
  const spec = recordAt(service, 'spec');
  if (spec === undefined) return [required('spec')];
  const errors: FieldError[] = [];
  const type = spec['type'];
  const ports = listOf(spec['ports']);
  const headless = spec['clusterIP'] === 'None';
  if (type === 'ExternalName') {
    if (typeof spec['externalName'] !== 'string' || spec['externalName'] === '') errors.push(required('spec.externalName'));
  } else if (ports.length === 0 && !headless) {
    errors.push(required('spec.ports'));
  }
  const names = new Set<string>();
  ports.forEach((port, index) => {
    const at = `spec.ports[${index}]`;
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (ports.length > 1 && name === '') errors.push(required(`${at}.name`));
    else if (name !== '') {
      if (names.has(name)) errors.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    const number = port['port'];
    if (typeof number === 'number' && (number < 1 || number > 65535)) errors.push(invalid(`${at}.port`, number, 'must be between 1 and 65535, inclusive'));
    if (port['nodePort'] !== undefined && type !== 'NodePort' && type !== 'LoadBalancer') {
      errors.push({ type: 'FieldValueForbidden', field: `${at}.nodePort`, detail: "may not be used when `type` is 'ClusterIP'" });
    }
  });
  return errors;
}

function validateUpdate(service: BuiltinObject, old: BuiltinObject): FieldError[] {
  const oldIp = recordAt(old, 'spec')?.['clusterIP'];
  const ip = recordAt(service, 'spec')?.['clusterIP'];
  // Changing to or from ExternalName releases or allocates; any other change of an allocated IP is refused.
  if (typeof oldIp === 'string' && oldIp !== '' && ip !== undefined && ip !== '' && ip !== oldIp) {
    return [invalid('spec.clusterIPs[0]', recordAt(service, 'spec')?.['clusterIPs'] ?? [ip], 'may not change once set')];
  }
  return [];
}

function portsText(service: BuiltinObject): string {
  const ports = listOf(recordAt(service, 'spec')?.['ports']);
  if (ports.length === 0) return '<none>';
  return ports
    .map((port) => `${String(port['port'])}${port['nodePort'] === undefined ? '' : `:${String(port['nodePort'])}`}/${String(port['protocol'] ?? 'TCP')}`)
    .join(',');
}

function externalIp(service: BuiltinObject): string {
  const spec = recordAt(service, 'spec');
  const type = spec?.['type'];
  if (type === 'ExternalName') return String(spec?.['externalName'] ?? '<none>');
  const external = (spec?.['externalIPs'] ?? []) as string[];
  if (type === 'LoadBalancer') {
    const ingress = listOf(recordAt(service, 'status', 'loadBalancer')?.['ingress']).map((entry) => String(entry['ip'] ?? entry['hostname'] ?? ''));
    const all = [...ingress, ...external];
    return all.length === 0 ? '<pending>' : all.join(',');
  }
  return external.length === 0 ? '<none>' : external.join(',');
}

/** serviceBehaviour is Service's part of the generic strategy. */
export const serviceBehaviour: KindBehaviour = {
  nameRule: 'dns-label',
  prepareForCreate: defaults,
  prepareForUpdate(service, old) {
    defaults(service);
    // Allocated addresses and ports stay when an update leaves them out (as kubectl apply does).
    const spec = recordAt(service, 'spec');
    const oldSpec = recordAt(old, 'spec');
    if (spec !== undefined && oldSpec !== undefined && spec['type'] === oldSpec['type']) {
      if ((spec['clusterIP'] ?? '') === '' && oldSpec['clusterIP'] !== undefined) {
        spec['clusterIP'] = oldSpec['clusterIP'];
        spec['clusterIPs'] = oldSpec['clusterIPs'];
      }
      const oldPorts = listOf(oldSpec['ports']);
      for (const port of listOf(spec['ports'])) {
        const match = oldPorts.find((item) => item['port'] === port['port'] && item['protocol'] === port['protocol']);
        if (port['nodePort'] === undefined && match?.['nodePort'] !== undefined) port['nodePort'] = match['nodePort'];
      }
    }
  },
  validate,
  validateUpdate,
  tableColumns: [
    NAME_COLUMN,
    column('Type', 'The type of the service.'),
    column('Cluster-IP', 'The IP address of the service.'),
    column('External-IP', 'The external IP address of the service.'),
    column('Port(s)', 'The ports of the service.'),
    AGE_COLUMN,
    column('Selector', 'Route service traffic to pods with label keys and values matching this selector.', 1),
  ],
  tableRow(service, now) {
    const spec = recordAt(service, 'spec');
    const selector = (spec?.['selector'] ?? {}) as Record<string, string>;
    const selectorText = Object.entries(selector)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    return [
      service.metadata.name ?? '',
      String(spec?.['type'] ?? ''),
      String(spec?.['clusterIP'] ?? '<none>'),
      externalIp(service),
      portsText(service),
      ageSince(service.metadata.creationTimestamp, now),
      selectorText === '' ? '<none>' : selectorText,
    ];
  },
  selectableFields: (service) => ({
    'spec.clusterIP': String(recordAt(service, 'spec')?.['clusterIP'] ?? ''),
    'spec.type': String(recordAt(service, 'spec')?.['type'] ?? ''),
  }),
};
