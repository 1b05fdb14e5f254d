import type { ReadView } from '../../../store/store.ts';
import { ComputeError } from './errors.ts';

/**
 * resourceInUse is the real 400 `resourceInUseByAnotherResource` a delete gets while another
 * resource refers to its target: `The TYPE resource 'PATH' is already being used by 'USER'`,
 * TYPE in the service's snake_case (`security_policy`, `instance_template`).
 */
export function resourceInUse(type: string, path: string, user: string): ComputeError {
  return new ComputeError(
    400,
    'resourceInUseByAnotherResource',
    `The ${type} resource '${path}' is already being used by '${user}'`,
    'RESOURCE_IN_USE_BY_ANOTHER_RESOURCE',
  );
}

/** SECURITY_POLICY_USAGE is a security policy's type word in the in-use error. */
export const SECURITY_POLICY_USAGE = 'security_policy';

/** INSTANCE_TEMPLATE_USAGE is an instance template's type word in the in-use error. */
export const INSTANCE_TEMPLATE_USAGE = 'instance_template';

/** UsageReader finds the path of one resource referring to `path` (a resource path, `projects/p/…`), read in the caller's view. */
export type UsageReader = (view: ReadView, project: string, path: string) => Promise<string | undefined>;

/**
 * Usages is what refers to what inside the family: each collection that holds references (a
 * backend service its policies, a managed instance group its templates) registers a reader for
 * the kind of resource it refers to, and that resource's delete asks here, inside its own
 * transaction, so a reference written meanwhile is seen.
 */
export class Usages {
  readonly #readers = new Map<string, UsageReader[]>();

  /** register adds a reader of references to resources of `type` (`security_policy`). */
  register(type: string, reader: UsageReader): void {
    const readers = this.#readers.get(type) ?? [];
    readers.push(reader);
    this.#readers.set(type, readers);
  }

  /** userOf is the first resource referring to `path`, if any. */
  async userOf(view: ReadView, type: string, project: string, path: string): Promise<string | undefined> {
    for (const reader of this.#readers.get(type) ?? []) {
      const user = await reader(view, project, path);
      if (user !== undefined) return user;
    }
    return undefined;
  }

  /** refuseInUse throws resourceInUse when something refers to `path`. */
  async refuseInUse(view: ReadView, type: string, project: string, path: string): Promise<void> {
    const user = await this.userOf(view, type, project, path);
    if (user !== undefined) throw resourceInUse(type, path, user);
  }
}
