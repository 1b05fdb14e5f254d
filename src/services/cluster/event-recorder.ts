/**
 * The core v1 Events a controller of kube-controller-manager records (client-go's
 * `record.EventRecorder`): named `<object>.<unix nanoseconds in hex>`, in the object's namespace
 * (`default` for a cluster-scoped one), `source.component` the controller's name, count 1, first
 * and last timestamp now. Written through the registry, so watchers and `kubectl get events` see
 * them and the TTL expires them.
 */
import type { Clock } from '../../lib/clock.ts';
import type { GenericRegistry, RequestScope } from './apimachinery/registry.ts';
import { formatTime } from './apimachinery/registry.ts';
import type { AnyView } from './apimachinery/strategy.ts';
import { coreEventsView, type ObjectReference } from './resources/events.ts';

/** EventType is core v1 Event.type. */
export type EventType = 'Normal' | 'Warning';

/** EventRecorder records one controller's events. */
export class EventRecorder {
  #last = 0n;

  constructor(
    readonly registry: GenericRegistry,
    readonly clock: Clock,
    /** component is `source.component`, the controller's name (`garbage-collector-controller`). */
    readonly component: string,
  ) {}

  /** record writes an event about `regarding`; a refused write is dropped, as the recorder drops it. */
  async record(regarding: ObjectReference, type: EventType, reason: string, message: string): Promise<void> {
    const now = this.clock.now();
    // Nanosecond names, distinct even when two events share a millisecond.
    let nanos = BigInt(now) * 1_000_000n;
    if (nanos <= this.#last) nanos = this.#last + 1n;
    this.#last = nanos;
    const namespace = regarding.namespace === undefined || regarding.namespace === '' ? 'default' : regarding.namespace;
    const time = formatTime(now);
    const scope: RequestScope = { view: coreEventsView as unknown as AnyView, group: '', namespace };
    const event = {
      metadata: { name: `${regarding.name ?? ''}.${nanos.toString(16)}`, namespace },
      involvedObject: regarding,
      reason,
      message,
      source: { component: this.component },
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      type,
    };
    try {
      await this.registry.create(scope, event, { dryRun: false, fieldManager: 'kube-controller-manager' });
    } catch {
      // The recorder never fails its controller (a namespace being deleted refuses new events).
    }
  }
}
