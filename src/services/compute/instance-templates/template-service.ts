import type { PagedSource } from '../shared/list-query.ts';
import type { IdSource } from '../../../lib/ids.ts';
import { uint64Id } from '../../../lib/ids.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { Principal } from '../../../core/auth.ts';
import type { Store } from '../../../store/store.ts';
import type { OperationService, StoredOperation } from '../operations/index.ts';
import { requirePermission } from '../shared/authorize.ts';
import { alreadyExists, internalError, notFound } from '../shared/errors.ts';
import { INSTANCE_TEMPLATE_USAGE, Usages } from '../shared/in-use.ts';
import type { Scope } from '../shared/locations.ts';
import type { NormalizedTemplate } from './normalize-template.ts';
import { INSTANCE_TEMPLATES_KIND, templateKey, templatePath, type StoredTemplate } from './template.ts';

// The decoder module, once its import has started (an import() per insert costs a trip through the module loader).
let loadedDecoder: Promise<typeof import('./decode-template.ts')> | undefined;

interface InsertWork {
  readonly project: string;
  readonly scope: Scope;
  readonly id: string;
  readonly template: NormalizedTemplate;
}

interface DeleteWork {
  readonly key: string;
  readonly path: string;
}

/** TemplateService implements insert, get, list and delete of instance templates, global and regional. */
export class TemplateService {
  constructor(
    private readonly store: Store,
    private readonly operations: OperationService,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    /** What refers to templates (managed instance groups): a template in use cannot be deleted. */
    private readonly usages: Usages = new Usages(),
  ) {
    operations.register('instanceTemplates.insert', async (tx, payload) => {
      const work = payload as InsertWork;
      const path = templatePath(work.project, work.scope, work.template.name);
      if (work.template.machineTypeIsUrl) {
        throw internalError(`Internal error. Please try again or contact Google Support. (Code: '${uint64Id(this.ids)}')`);
      }
      const key = templateKey(work.project, work.scope, work.template.name);
      if ((await tx.get(INSTANCE_TEMPLATES_KIND, key)) !== undefined) throw alreadyExists(path);
      const stored: StoredTemplate = {
        id: work.id,
        name: work.template.name,
        project: work.project,
        scope: work.scope,
        description: work.template.description,
        creationTime: this.clock.now(),
        properties: work.template.properties,
      };
      await tx.put(INSTANCE_TEMPLATES_KIND, key, stored, { expectRevision: 0 });
      return { targetId: work.id };
    });
    operations.register('instanceTemplates.delete', async (tx, payload) => {
      const work = payload as DeleteWork;
      const [project = ''] = work.key.split('/');
      await this.usages.refuseInUse(tx, INSTANCE_TEMPLATE_USAGE, project, work.path);
      if ((await tx.delete(INSTANCE_TEMPLATES_KIND, work.key)) === undefined) throw notFound(work.path);
    });
  }

  /** insert validates synchronously (400/403/409 on the request) and starts the Operation that creates the template. */
  async insert(project: string, scope: Scope, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    // The schema and the validators load with the first insert, not at start-up.
    loadedDecoder ??= import('./decode-template.ts');
    const { decodeTemplate } = await loadedDecoder;
    const earlier = await this.operations.byRequestId(project, scope, requestId);
    if (earlier !== undefined) return earlier;
    const template = decodeTemplate(body, { project, checkPermission: (permission, path) => requirePermission(principal, permission, path) }, this.ids);
    const path = templatePath(project, scope, template.name);
    if ((await this.store.get(INSTANCE_TEMPLATES_KIND, templateKey(project, scope, template.name))) !== undefined) {
      // A concurrent twin of this request (same requestId) may have created it meanwhile: its Operation is the answer.
      const twin = await this.operations.byRequestId(project, scope, requestId);
      if (twin !== undefined) return twin;
      throw alreadyExists(path);
    }
    const id = uint64Id(this.ids);
    const work: InsertWork = { project, scope, id, template };
    return this.operations.start({
      project,
      scope,
      operationType: 'insert',
      targetPath: path,
      targetId: id,
      user: principal.email,
      requestId,
      work: { action: 'instanceTemplates.insert', payload: work },
    });
  }

  /** get reads one template or throws the real 404. */
  async get(project: string, scope: Scope, name: string): Promise<StoredTemplate> {
    const record = await this.store.get<StoredTemplate>(INSTANCE_TEMPLATES_KIND, templateKey(project, scope, name));
    if (record === undefined) throw notFound(templatePath(project, scope, name));
    return record.value;
  }

  /** list returns the templates of one scope, or of all scopes, in name order. */
  async list(project: string, scope?: Scope): Promise<StoredTemplate[]> {
    return (await this.source(project, scope)(undefined, undefined)).map((record) => record.value);
  }

  /** source reads one scope's templates, or every scope's when `scope` is undefined, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<StoredTemplate> {
    const prefix = scope === undefined ? `${project}/` : templateKey(project, scope, '');
    return (after, limit) =>
      this.store.list<StoredTemplate>(INSTANCE_TEMPLATES_KIND, {
        prefix,
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
      });
  }

  /** delete checks the template exists (404 on the request) and starts the Operation that removes it. */
  async delete(project: string, scope: Scope, name: string, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(project, scope, requestId);
    if (earlier !== undefined) return earlier;
    const template = await this.get(project, scope, name);
    const path = templatePath(project, scope, name);
    await this.usages.refuseInUse(this.store, INSTANCE_TEMPLATE_USAGE, project, path);
    return this.operations.start({
      project,
      scope,
      operationType: 'delete',
      targetPath: path,
      targetId: template.id,
      user: principal.email,
      requestId,
      work: { action: 'instanceTemplates.delete', payload: { key: templateKey(project, scope, name), path } satisfies DeleteWork },
    });
  }
}
