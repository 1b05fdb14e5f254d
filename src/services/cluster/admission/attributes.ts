/**
 * What an admission step is told about a write and what it answers (the apiserver's
 * admission.Attributes and the chain's Admit/Validate results). The generic registry builds the
 * attributes at the one depth every write shares — create, update (PUT, every PATCH type, apply),
 * delete and deletecollection, subresources, custom resources, dry-run — and runs the chain in the
 * apiserver's order: mutating admission, then the strategy's validation, then validating admission,
 * then storage.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import type { UserInfo } from '../cluster-auth.ts';

/** AdmissionOperation is the operation admission sees (reads never reach it). */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** AdmissionAttributes describe one write as admission sees it; objects are in the wire form of the view, with apiVersion and kind. */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The view the request came through (group, version, resource, subresource, kind, scope). */
  readonly view: AnyView;
  /** The object's name; `''` for a create with generateName before the name is generated. */
  readonly name: string;
  /** The request's namespace; `''` for cluster-scoped objects (a Namespace's own name for namespaces). */
  readonly namespace: string;
  /** The new object; undefined on DELETE. */
  readonly object: KubeObject | undefined;
  /** The stored object; undefined on CREATE. */
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
  /** The operation's options object (`CreateOptions`, `UpdateOptions`, `DeleteOptions`), as the review carries it. */
  readonly options: Record<string, unknown>;
  readonly userInfo: UserInfo;
}

/** AdmissionChain is what the registry calls: both phases, each a no-op when nothing is configured. */
export interface AdmissionChain {
  /** active is false when no policy binding or webhook is configured at all (the registry then skips admission). */
  active(): boolean;
  /** mutates is false when the mutating phase has nothing to run (no mutating webhook): the registry then skips it. */
  mutates(): boolean;
  /** admit runs the mutating phase: the object as mutated, or undefined when unchanged (may throw a StatusError). */
  admit(attributes: AdmissionAttributes, outcome: AdmissionOutcome | undefined): Promise<KubeObject | undefined>;
  /** validate runs the validating phase (throws the first refusal as a StatusError). */
  validate(attributes: AdmissionAttributes, outcome: AdmissionOutcome | undefined): Promise<void>;
}

/** AdmissionSink takes what admission gathered about one request as it comes: warnings for the answer's `Warning` headers, audit annotations for its journal entry. */
export interface AdmissionSink {
  warning(text: string): void;
  annotate(key: string, value: string): void;
}

/** AdmissionOutcome hands a phase's warnings and annotations to the request's sink (they count whether or not the request is admitted). */
export class AdmissionOutcome {
  constructor(readonly sink: AdmissionSink) {}
  /** add passes warnings and annotations on. */
  add(warnings: readonly string[], auditAnnotations: Readonly<Record<string, string>> = {}): void {
    for (const warning of warnings) this.sink.warning(warning);
    for (const [key, value] of Object.entries(auditAnnotations)) this.sink.annotate(key, value);
  }
}
