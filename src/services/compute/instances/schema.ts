import { InstancePropertiesSchema } from '../instance-templates/schema.ts';
import { PBool, PMap, PMessage, PString, PUint64, type Decoded } from '../shared/proto-schema.ts';

/**
 * InstanceSchema is the Instance message as fogbank reads it: the fields it shares with a
 * template's InstanceProperties, its name and labels, and the output-only members a client may
 * echo back (replaced by the server).
 */
export const InstanceSchema = PMessage('Instance', {
  ...InstancePropertiesSchema.properties,
  kind: PString(),
  id: PUint64(),
  creationTimestamp: PString(),
  name: PString(),
  zone: PString(),
  status: PString(),
  selfLink: PString(),
  fingerprint: PString(),
  labelFingerprint: PString(),
  labels: PMap(PString()),
  deletionProtection: PBool(),
  hostname: PString(),
  startRestricted: PBool(),
  cpuPlatform: PString(),
  statusMessage: PString(),
  lastStartTimestamp: PString(),
  lastStopTimestamp: PString(),
  lastSuspendedTimestamp: PString(),
});
/** InstanceInput is a decoded Instance body. */
export type InstanceInput = Decoded<typeof InstanceSchema>;

/** LabelsBodySchema is InstancesSetLabelsRequest. */
export const InstancesSetLabelsSchema = PMessage('InstancesSetLabelsRequest', { labels: PMap(PString()), labelFingerprint: PString() });
/** MetadataBodySchema is the Metadata message setMetadata takes. */
export const MetadataSchema = InstancePropertiesSchema.properties.metadata;
/** TagsSchema is the Tags message setTags takes. */
export const TagsSchema = InstancePropertiesSchema.properties.tags;
