import { link, type Links } from '../shared/links.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';

/** INSTANCE_TEMPLATES_KIND is the store kind; keys are `project/scopePath/name`. */
export const INSTANCE_TEMPLATES_KIND = 'compute.instanceTemplates';

/** StoredTemplate is an instance template as kept (resource references as paths, rendered as URLs). */
export interface StoredTemplate {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly scope: Scope;
  readonly description: string;
  readonly creationTime: number;
  readonly properties: Record<string, unknown>;
}

/** templateKey is the store key of a template. */
export function templateKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** templatePath is the resource path of a template. */
export function templatePath(project: string, scope: Scope, name: string): string {
  return `projects/${project}/${scopePath(scope)}/instanceTemplates/${name}`;
}

/** renderTemplate is the wire form, with every link on the caller's address. */
export function renderTemplate(template: StoredTemplate, links: Links): Record<string, unknown> {
  const properties = { ...template.properties };
  const interfaces = properties['networkInterfaces'];
  if (Array.isArray(interfaces)) {
    properties['networkInterfaces'] = interfaces.map((nic: Record<string, unknown>) => ({
      ...nic,
      network: link(links, String(nic['network'])),
      ...(nic['subnetwork'] === undefined ? {} : { subnetwork: link(links, String(nic['subnetwork'])) }),
    }));
  }
  const path = templatePath(template.project, template.scope, template.name);
  return {
    kind: 'compute#instanceTemplate',
    id: template.id,
    creationTimestamp: rfc3339(template.creationTime),
    name: template.name,
    description: template.description,
    properties,
    selfLink: link(links, path),
    selfLinkWithId: link(links, templatePath(template.project, template.scope, template.id)),
    ...(template.scope.kind === 'region' ? { region: link(links, `projects/${template.project}/regions/${template.scope.name}`) } : {}),
  };
}
