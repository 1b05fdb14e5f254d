/**
 * A rule's `preconfiguredWafConfig.exclusions[]` as ModSecurity lines (shared/reference/
 * cloud-armor-waf.md §4.2, §4.5): an excluded header, cookie or query parameter hides its *value*
 * from the target signatures (`SecRuleUpdateTargetById ID "!REQUEST_HEADERS:/re/"`; the `*_NAMES`
 * collections stay, so the name is still inspected), compared case-insensitively (ModSecurity's
 * regex selectors are); a query parameter is excluded from the query string and the body alike
 * (ARGS, ARGS_GET). An excluded URI hides the URI variables from them for requests whose path
 * matches (a phase-1 rule on REQUEST_FILENAME, lower-cased, with `ctl:ruleRemoveTargetById`); it
 * does not exempt the request. Without `targetRuleIds`, every signature of the set is a target.
 */
import { quoteEscape, regexEscape } from './engine-config.ts';

/** ExclusionOp is how an exclusion's `val` is compared with a field's name (or the request path). */
export type ExclusionOp = 'EQUALS' | 'STARTS_WITH' | 'ENDS_WITH' | 'CONTAINS' | 'EQUALS_ANY';

/** ExclusionField is one `{op, val}`. */
export interface ExclusionField {
  readonly op: ExclusionOp;
  /** val is absent for EQUALS_ANY. */
  readonly val?: string;
}

/** ExclusionSpec is one exclusion resolved to CRS rule ids. */
export interface ExclusionSpec {
  /** crsIds are the CRS rules it targets, sorted. */
  readonly crsIds: readonly string[];
  readonly headers: readonly ExclusionField[];
  readonly cookies: readonly ExclusionField[];
  readonly queryParams: readonly ExclusionField[];
  readonly uris: readonly ExclusionField[];
}

/** URI_VARIABLES are what an excluded URI hides ("excluded entirely …, no re-assembling"). */
const URI_VARIABLES = ['REQUEST_URI', 'REQUEST_URI_RAW', 'REQUEST_LINE', 'REQUEST_FILENAME', 'REQUEST_BASENAME'];

/** FIRST_URI_RULE_ID numbers the generated URI rules (ids outside CRS's 900000–999999). */
const FIRST_URI_RULE_ID = 20000;

/** exclusionLines writes the ModSecurity lines of `exclusions`, to follow the CRS files. */
export function exclusionLines(exclusions: readonly ExclusionSpec[]): string[] {
  const lines: string[] = [];
  let nextId = FIRST_URI_RULE_ID;
  for (const exclusion of exclusions) {
    const targets = [
      ...exclusion.headers.map((field) => selector('REQUEST_HEADERS', field)),
      ...exclusion.cookies.map((field) => selector('REQUEST_COOKIES', field)),
      ...exclusion.queryParams.flatMap((field) => [selector('ARGS', field), selector('ARGS_GET', field)]),
    ];
    for (const id of exclusion.crsIds) for (const target of targets) lines.push(`SecRuleUpdateTargetById ${id} "${quoteEscape(target)}"`);
    for (const uri of exclusion.uris) {
      if (exclusion.crsIds.length === 0) continue;
      const actions = exclusion.crsIds.flatMap((id) => URI_VARIABLES.map((variable) => `ctl:ruleRemoveTargetById=${id};${variable}`));
      lines.push(`SecRule REQUEST_FILENAME "${uriOperator(uri)}" "id:${nextId++},phase:1,pass,nolog,t:none,t:lowercase,${actions.join(',')}"`);
    }
  }
  return lines;
}

/** selector is `!COLL:/re/` for a named field, `!COLL` for EQUALS_ANY. */
function selector(collection: string, field: ExclusionField): string {
  if (field.op === 'EQUALS_ANY') return `!${collection}`;
  const value = regexEscape(field.val ?? '');
  const pattern = field.op === 'EQUALS' ? `^${value}$` : field.op === 'STARTS_WITH' ? `^${value}` : field.op === 'ENDS_WITH' ? `${value}$` : value;
  return `!${collection}:/${pattern}/`;
}

/** uriOperator compares the lower-cased path with the lower-cased value. */
function uriOperator(field: ExclusionField): string {
  const value = quoteEscape((field.val ?? '').toLowerCase());
  switch (field.op) {
    case 'EQUALS_ANY':
      return '@unconditionalMatch';
    case 'EQUALS':
      return `@streq ${value}`;
    case 'STARTS_WITH':
      return `@beginsWith ${value}`;
    case 'ENDS_WITH':
      return `@endsWith ${value}`;
    case 'CONTAINS':
      return `@contains ${value}`;
  }
}
