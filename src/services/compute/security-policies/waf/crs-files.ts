/**
 * Where Debian's OWASP Core Rule Set lives (`modsecurity-crs` 3.3.4): the rule files and the
 * `*.data` files their `@pmFromFile` operators read from beside them. FOGBANK_CRS_DIR points
 * elsewhere (another distribution's layout).
 */
import { existsSync } from 'node:fs';

/** CRS_RULES_DIRECTORY holds REQUEST-9xx-*.conf and the data files. */
export const CRS_RULES_DIRECTORY = process.env['FOGBANK_CRS_DIR'] ?? '/usr/share/modsecurity-crs/rules';

/** CRS_INITIALIZATION is the file every configuration loads first. */
export const CRS_INITIALIZATION = 'REQUEST-901-INITIALIZATION.conf';

/** crsMissing says why the rule set is not usable here, or undefined when it is. */
export function crsMissing(): string | undefined {
  if (existsSync(`${CRS_RULES_DIRECTORY}/${CRS_INITIALIZATION}`)) return undefined;
  return `the OWASP Core Rule Set is not at ${CRS_RULES_DIRECTORY} (install Debian's modsecurity-crs, or set FOGBANK_CRS_DIR)`;
}
