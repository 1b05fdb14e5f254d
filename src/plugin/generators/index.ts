// Code generators shipped with fogbank.
export {
  FOGBANK_PARAMETERS,
  FOGBANK_VERSION,
  fogbankPlugin,
  isMultiSegment,
  outputName,
  parseFogbankOptions,
  parsePathTemplate,
  REST_RUNTIME_FILE,
  REST_RUNTIME_SOURCE,
  TemplateError,
  variablePattern,
  type FogbankOptions,
  type PathTemplate,
  type TemplateVariable,
} from './fogbank/index.ts';
