import { parseParameters, type ParameterSpecs } from '../../runtime/index.ts';

/** FOGBANK_PARAMETERS declares every parameter protoc-gen-fogbank accepts (see docs/plugin.md). */
export const FOGBANK_PARAMETERS = {
  import_extension: { values: ['js', 'ts', 'none'], default: 'js' },
  rest_clients: { values: ['true', 'false'], default: 'true', bare: 'true' },
  comments: { values: ['true', 'false'], default: 'true', bare: 'true' },
  enum_hints: { values: ['true', 'false'], default: 'true', bare: 'true' },
} as const satisfies ParameterSpecs;

/** FogbankOptions is the parsed, typed parameter set. */
export interface FogbankOptions {
  /** importExtension is appended to relative import specifiers ("" for none). */
  readonly importExtension: '.js' | '.ts' | '';
  /** restClients turns on fetch clients for services with google.api.http rules. */
  readonly restClients: boolean;
  /** comments copies proto comments into JSDoc. */
  readonly comments: boolean;
  /** enumHints types `string` fields documented as "Check the X enum" as X's names (open union). */
  readonly enumHints: boolean;
}

/** parseFogbankOptions parses the request parameter strictly; errors name the bad option. */
export function parseFogbankOptions(parameter: string): FogbankOptions {
  const p = parseParameters(parameter, FOGBANK_PARAMETERS);
  return {
    importExtension: p.import_extension === 'none' ? '' : p.import_extension === 'ts' ? '.ts' : '.js',
    restClients: p.rest_clients === 'true',
    comments: p.comments === 'true',
    enumHints: p.enum_hints === 'true',
  };
}
