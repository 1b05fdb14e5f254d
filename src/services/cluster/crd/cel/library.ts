/**
 * Every function a CRD validation rule may call (Kubernetes 1.32's environment for new rules):
 * CEL's standard library, extended strings, optional types, lists, sets, regex, url, quantity,
 * ip/cidr, named formats and authz (whose `authorizer` only admission expressions declare).
 */
import { AUTHZ_OVERLOADS } from './library-authz.ts';
import { FORMAT_OVERLOADS } from './library-format.ts';
import { IP_OVERLOADS } from './library-ip.ts';
import { LISTS_OVERLOADS, SETS_OVERLOADS } from './library-lists.ts';
import { OPTIONAL_OVERLOADS } from './library-optional.ts';
import { QUANTITY_OVERLOADS } from './library-quantity.ts';
import { REGEX_OVERLOADS } from './library-regex.ts';
import { STRINGS_OVERLOADS } from './library-strings.ts';
import { URL_OVERLOADS } from './library-url.ts';
import { type Overload, STANDARD_OVERLOADS } from './overloads.ts';

/** ALL_OVERLOADS is the rule environment's function table. */
export const ALL_OVERLOADS: readonly Overload[] = [
  ...STANDARD_OVERLOADS,
  ...STRINGS_OVERLOADS,
  ...OPTIONAL_OVERLOADS,
  ...LISTS_OVERLOADS,
  ...SETS_OVERLOADS,
  ...REGEX_OVERLOADS,
  ...URL_OVERLOADS,
  ...QUANTITY_OVERLOADS,
  ...IP_OVERLOADS,
  ...FORMAT_OVERLOADS,
  ...AUTHZ_OVERLOADS,
];
