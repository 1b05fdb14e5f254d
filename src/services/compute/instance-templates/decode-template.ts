// An insert body read against the schema and validated: what TemplateService loads with the first
// insert (the schema and the validators stay out of start-up).
import type { IdSource } from '../../../lib/ids.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { normalizeTemplate, type NormalizedTemplate } from './normalize-template.ts';
import { InstanceTemplateSchema, type InstanceTemplateInput } from './schema.ts';
import type { ValidationContext } from './validation-context.ts';

/** decodeTemplate reads an insert body (400 on a field the schema refuses) and validates it into the stored form. */
export function decodeTemplate(body: unknown, ctx: ValidationContext, ids: IdSource): NormalizedTemplate {
  return normalizeTemplate(decodeResource<InstanceTemplateInput>(InstanceTemplateSchema, body), ctx, ids);
}
