/** Compute's terms in the spec's neutral spelling and the real one (the mechanism is core/identifiers.ts). */
import { type Term, Vocabulary } from '../../core/identifiers.ts';

/** SECURITY_POLICY_TYPES is compute's `SecurityPolicy.type` enum: CLOUD_ARMOR is what the spec calls EDGEGUARD. */
export const SECURITY_POLICY_TYPES = new Vocabulary([
  { real: 'CLOUD_ARMOR', spec: 'EDGEGUARD' },
  { real: 'CLOUD_ARMOR_EDGE', spec: 'EDGEGUARD_EDGE' },
  { real: 'CLOUD_ARMOR_NETWORK', spec: 'EDGEGUARD_NETWORK' },
  { real: 'CLOUD_ARMOR_INTERNAL_SERVICE', spec: 'EDGEGUARD_INTERNAL_SERVICE' },
]);

/** SECURITY_PRODUCT names the security-policy product in prose (error texts use the real words). */
export const SECURITY_PRODUCT: Term = { real: 'Cloud Armor', spec: 'EDGEGUARD' };
