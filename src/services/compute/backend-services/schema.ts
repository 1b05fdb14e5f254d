import { PBool, PDouble, PEnum, PInt32, PMap, PMessage, PRepeated, PString, PUint64, type Decoded } from '../shared/proto-schema.ts';

/** LOAD_BALANCING_SCHEMES are BackendService.LoadBalancingScheme's values (v1). */
export const LOAD_BALANCING_SCHEMES = [
  'EXTERNAL',
  'EXTERNAL_MANAGED',
  'INTERNAL',
  'INTERNAL_MANAGED',
  'INTERNAL_SELF_MANAGED',
  'INVALID_LOAD_BALANCING_SCHEME',
] as const;
/** LoadBalancingScheme is one of LOAD_BALANCING_SCHEMES. */
export type LoadBalancingScheme = (typeof LOAD_BALANCING_SCHEMES)[number];

/** PROTOCOLS are BackendService.Protocol's values (v1). */
export const PROTOCOLS = ['GRPC', 'H2C', 'HTTP', 'HTTP2', 'HTTPS', 'SSL', 'TCP', 'UDP', 'UNSPECIFIED'] as const;

const SESSION_AFFINITIES = [
  'CLIENT_IP',
  'CLIENT_IP_NO_DESTINATION',
  'CLIENT_IP_PORT_PROTO',
  'CLIENT_IP_PROTO',
  'GENERATED_COOKIE',
  'HEADER_FIELD',
  'HTTP_COOKIE',
  'NONE',
  'STRONG_COOKIE_AFFINITY',
] as const;

const Backend = PMessage('Backend', {
  group: PString(),
  balancingMode: PEnum('Backend.BalancingMode', ['CONNECTION', 'CUSTOM_METRICS', 'RATE', 'UTILIZATION']),
  capacityScaler: PDouble(),
  description: PString(),
  failover: PBool(),
  maxConnections: PInt32(),
  maxConnectionsPerInstance: PInt32(),
  maxRate: PInt32(),
  maxRatePerInstance: PDouble(),
  maxUtilization: PDouble(),
  preference: PEnum('Backend.Preference', ['DEFAULT', 'PREFERRED', 'PREFERENCE_UNSPECIFIED']),
});

/**
 * BackendServiceSchema is the BackendService message as fogbank reads it: the fields a load
 * balancer's backend is configured by, the two policy references, and the output-only members
 * clients echo back on update (replaced by the server).
 */
export const BackendServiceSchema = PMessage('BackendService', {
  kind: PString(),
  id: PUint64(),
  creationTimestamp: PString(),
  selfLink: PString(),
  region: PString(),
  name: PString(),
  description: PString(),
  fingerprint: PString(),
  affinityCookieTtlSec: PInt32(),
  backends: PRepeated(Backend),
  compressionMode: PEnum('BackendService.CompressionMode', ['AUTOMATIC', 'DISABLED']),
  connectionDraining: PMessage('ConnectionDraining', { drainingTimeoutSec: PInt32() }),
  customRequestHeaders: PRepeated(PString()),
  customResponseHeaders: PRepeated(PString()),
  edgeSecurityPolicy: PString(),
  enableCDN: PBool(),
  healthChecks: PRepeated(PString()),
  loadBalancingScheme: PEnum('BackendService.LoadBalancingScheme', LOAD_BALANCING_SCHEMES),
  localityLbPolicy: PEnum('BackendService.LocalityLbPolicy', [
    'INVALID_LB_POLICY',
    'LEAST_REQUEST',
    'MAGLEV',
    'ORIGINAL_DESTINATION',
    'RANDOM',
    'RING_HASH',
    'ROUND_ROBIN',
    'WEIGHTED_GCP_RENDEZVOUS',
    'WEIGHTED_MAGLEV',
    'WEIGHTED_ROUND_ROBIN',
  ]),
  logConfig: PMessage('BackendServiceLogConfig', {
    enable: PBool(),
    sampleRate: PDouble(),
    optionalMode: PEnum('BackendServiceLogConfig.OptionalMode', ['CUSTOM', 'EXCLUDE_ALL_OPTIONAL', 'INCLUDE_ALL_OPTIONAL']),
    optionalFields: PRepeated(PString()),
  }),
  // Deployment metadata a GKE hub controller sets; @google-cloud/compute sends it (empty) with every BackendService.
  metadatas: PMap(PString()),
  network: PString(),
  port: PInt32(),
  portName: PString(),
  protocol: PEnum('BackendService.Protocol', PROTOCOLS),
  securityPolicy: PString(),
  sessionAffinity: PEnum('BackendService.SessionAffinity', SESSION_AFFINITIES),
  timeoutSec: PInt32(),
});
/** BackendServiceInput is a decoded BackendService body. */
export type BackendServiceInput = Decoded<typeof BackendServiceSchema>;

/** SecurityPolicyReferenceSchema is the body of setSecurityPolicy and setEdgeSecurityPolicy. */
export const SecurityPolicyReferenceSchema = PMessage('SecurityPolicyReference', { securityPolicy: PString() });
