/**
 * Events: stored once in the core v1 shape (the real server's storage version) and served both
 * as events.k8s.io/v1 (`regarding`, `note`, `deprecated*`) and as core v1 (`involvedObject`,
 * `message`, …), converted both ways (upstream `pkg/apis/events/v1/conversion.go`). Validation
 * depends on the group the request came through (upstream `pkg/apis/core/validation/events.go`).
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import { immutable, invalid, required, type FieldError } from '../apimachinery/field-errors.ts';
import { goLength, isDns1123Subdomain, isQualifiedName } from '../apimachinery/name-rules.ts';
import { validateObjectMeta, type KubeObject } from '../apimachinery/object-meta.ts';
import type { RequestInfo, ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { CORE_V1_SCHEMAS } from './core-schemas.ts';
import { CORE_V1_EVENT, EVENTS_V1_EVENT, EVENTS_V1_SCHEMAS } from './event-schemas.ts';

/** ObjectReference points at the object an event is about. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** CoreEvent is the stored (core v1) shape of an event. */
export interface CoreEvent extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** EventsV1Event is the events.k8s.io/v1 shape. */
export interface EventsV1Event extends KubeObject {
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number;
}

const LIMIT_128 = 128;
const NOTE_LIMIT = 1024;

function set(value: string | undefined | null): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** compact drops absent values, so the stored form only holds what was given. */
function compact(object: Record<string, unknown> & { metadata: KubeObject['metadata'] }): CoreEvent {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined && value !== null && value !== '') out[key] = value;
  return out as CoreEvent;
}

function isEmptyObject(value: object | undefined): boolean {
  return value === undefined || Object.keys(value).length === 0;
}

/** fromEventsV1 converts an events.k8s.io/v1 Event into the stored form. */
export function fromEventsV1(event: EventsV1Event): CoreEvent {
  return compact({
    metadata: event.metadata,
    involvedObject: event.regarding,
    reason: event.reason,
    message: event.note,
    source: isEmptyObject(event.deprecatedSource) ? undefined : event.deprecatedSource,
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    count: event.deprecatedCount === 0 ? undefined : event.deprecatedCount,
    type: event.type,
    eventTime: event.eventTime,
    series: event.series,
    action: event.action,
    related: event.related,
    reportingComponent: event.reportingController,
    reportingInstance: event.reportingInstance,
  });
}

/** toEventsV1 converts the stored form to events.k8s.io/v1, with the fields Go always writes. */
export function toEventsV1(event: CoreEvent): EventsV1Event {
  return {
    metadata: event.metadata,
    eventTime: event.eventTime ?? null,
    ...(event.series === undefined ? {} : { series: event.series }),
    ...(set(event.reportingComponent) ? { reportingController: event.reportingComponent! } : {}),
    ...(set(event.reportingInstance) ? { reportingInstance: event.reportingInstance! } : {}),
    ...(set(event.action) ? { action: event.action! } : {}),
    ...(set(event.reason) ? { reason: event.reason! } : {}),
    regarding: event.involvedObject ?? {},
    ...(event.related === undefined ? {} : { related: event.related }),
    ...(set(event.message) ? { note: event.message! } : {}),
    ...(set(event.type) ? { type: event.type! } : {}),
    deprecatedSource: event.source ?? {},
    deprecatedFirstTimestamp: event.firstTimestamp ?? null,
    deprecatedLastTimestamp: event.lastTimestamp ?? null,
    ...(event.count === undefined || event.count === 0 ? {} : { deprecatedCount: event.count }),
  };
}

/** fromCoreV1 converts a core v1 Event body into the stored form. */
export function fromCoreV1(event: CoreEvent): CoreEvent {
  return compact({ ...event, source: isEmptyObject(event.source) ? undefined : event.source, count: event.count === 0 ? undefined : event.count });
}

/** toCoreV1 renders the stored form as core v1, with the fields Go always writes. */
export function toCoreV1(event: CoreEvent): CoreEvent {
  return {
    metadata: event.metadata,
    involvedObject: event.involvedObject ?? {},
    ...(set(event.reason) ? { reason: event.reason! } : {}),
    ...(set(event.message) ? { message: event.message! } : {}),
    source: event.source ?? {},
    firstTimestamp: event.firstTimestamp ?? null,
    lastTimestamp: event.lastTimestamp ?? null,
    ...(event.count === undefined ? {} : { count: event.count }),
    ...(set(event.type) ? { type: event.type! } : {}),
    eventTime: event.eventTime ?? null,
    ...(event.series === undefined ? {} : { series: event.series }),
    ...(set(event.action) ? { action: event.action! } : {}),
    ...(event.related === undefined ? {} : { related: event.related }),
    reportingComponent: event.reportingComponent ?? '',
    reportingInstance: event.reportingInstance ?? '',
  };
}

function strict(request: RequestInfo): boolean {
  return request.view.group === 'events.k8s.io';
}

/** legacyValidateEvent holds for every event, whichever group it came through. */
function legacyValidateEvent(event: CoreEvent): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involvedNamespace = event.involvedObject?.namespace ?? '';
  if (!set(event.eventTime)) {
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') errors.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    } else if (namespace !== involvedNamespace) {
      errors.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') {
      errors.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
    const controller = event.reportingComponent ?? '';
    if (controller === '') errors.push(required('reportingController'));
    for (const problem of isQualifiedName(controller)) errors.push(invalid('reportingController', controller, problem));
    const instance = event.reportingInstance ?? '';
    if (instance === '') errors.push(required('reportingInstance'));
    if (goLength(instance) > LIMIT_128) errors.push(invalid('reportingInstance', '', `can have at most ${LIMIT_128} characters`));
    const action = event.action ?? '';
    if (action === '') errors.push(required('action'));
    if (goLength(action) > LIMIT_128) errors.push(invalid('action', '', `can have at most ${LIMIT_128} characters`));
    const reason = event.reason ?? '';
    if (reason === '') errors.push(required('reason'));
    if (goLength(reason) > LIMIT_128) errors.push(invalid('reason', '', `can have at most ${LIMIT_128} characters`));
    if (goLength(event.message ?? '') > NOTE_LIMIT) errors.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const problem of isDns1123Subdomain(namespace)) errors.push(invalid('namespace', namespace, problem));
  return errors;
}

function validateSeries(event: CoreEvent): FieldError[] {
  if (event.series === undefined) return [];
  const errors: FieldError[] = [];
  if ((event.series.count ?? 0) < 2) errors.push(invalid('series.count', '', 'should be at least 2'));
  if (!set(event.series.lastObservedTime)) errors.push(required('series.lastObservedTime'));
  return errors;
}

function validateEventCreate(event: CoreEvent, request: RequestInfo): FieldError[] {
  const errors = legacyValidateEvent(event);
  if (!strict(request)) return errors;
  errors.push(...validateObjectMeta(event.metadata, { namespaced: true, nameRule: 'dns-subdomain' }));
  errors.push(...validateSeries(event));
  if (!set(event.eventTime)) errors.push(required('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') errors.push(invalid('type', '', `has invalid value: ${event.type ?? ''}`));
  if (set(event.firstTimestamp)) errors.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (set(event.lastTimestamp)) errors.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if ((event.count ?? 0) !== 0) errors.push(invalid('count', '', 'needs to be unset'));
  if (set(event.source?.component) || set(event.source?.host)) errors.push(invalid('source', '', 'needs to be unset'));
  return errors;
}

const IMMUTABLE_FIELDS: readonly (keyof CoreEvent & string)[] = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

const IMMUTABLE_PATHS: Partial<Record<string, string>> = { reportingComponent: 'reportingController' };

function validateEventUpdate(event: CoreEvent, old: CoreEvent, request: RequestInfo): FieldError[] {
  const errors = legacyValidateEvent(event);
  if (!strict(request)) return errors;
  if (JSON.stringify(event.series) !== JSON.stringify(old.series)) errors.push(...validateSeries(event));
  for (const field of IMMUTABLE_FIELDS) {
    if (JSON.stringify(event[field] ?? null) !== JSON.stringify(old[field] ?? null))
      errors.push(immutable(IMMUTABLE_PATHS[field] ?? field, event[field] ?? ''));
  }
  return errors;
}

function formatEventSource(event: CoreEvent): string {
  const component = set(event.source?.component) ? event.source!.component! : (event.reportingComponent ?? '');
  const instance = set(event.source?.host) ? event.source!.host! : (event.reportingInstance ?? '');
  if (component === '') return '';
  return instance === '' ? component : `${component}, ${instance}`;
}

/** eventStrategy is Event's behaviour in the generic registry (for both views). */
export const eventStrategy = {
  namespaced: true,
  nameRule: 'path-segment',
  // ValidateEventCreate: the legacy checks, then (events.k8s.io only) ObjectMeta.
  validatesObjectMeta: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  invalidKind: { group: '', kind: 'Event' },
  prepareForCreate: () => undefined,
  prepareForUpdate: () => undefined,
  validate: validateEventCreate,
  validateUpdate: validateEventUpdate,
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: [
    { name: 'Last Seen', type: 'string', format: '', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0 },
    { name: 'Type', type: 'string', format: '', description: 'Type of this event (Normal, Warning), new types could be added in the future', priority: 0 },
    {
      name: 'Reason',
      type: 'string',
      format: '',
      description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      priority: 0,
    },
    { name: 'Object', type: 'string', format: '', description: 'The object that this event is about.', priority: 0 },
    {
      name: 'Subobject',
      type: 'string',
      format: '',
      description: 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      priority: 1,
    },
    {
      name: 'Source',
      type: 'string',
      format: '',
      description: 'The component reporting this event. Should be a short machine understandable string.',
      priority: 1,
    },
    { name: 'Message', type: 'string', format: '', description: 'A human-readable description of the status of this operation.', priority: 0 },
    {
      name: 'First Seen',
      type: 'string',
      format: '',
      description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      priority: 1,
    },
    { name: 'Count', type: 'string', format: '', description: 'The number of times this event has occurred.', priority: 1 },
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 1 },
  ],
  tableRow(event, now) {
    const firstSeen = set(event.firstTimestamp) ? ageSince(event.firstTimestamp, now) : ageSince(event.eventTime, now);
    let lastSeen = set(event.lastTimestamp) ? ageSince(event.lastTimestamp, now) : firstSeen;
    let count = event.count ?? 0;
    if (event.series !== undefined) {
      lastSeen = ageSince(event.series.lastObservedTime, now);
      count = event.series.count ?? 0;
    } else if (count === 0) {
      count = 1;
    }
    const involved = event.involvedObject ?? {};
    const kind = (involved.kind ?? '').toLowerCase();
    const target = set(involved.name) ? `${kind}/${involved.name!}` : kind;
    return [
      lastSeen,
      event.type ?? '',
      event.reason ?? '',
      target,
      involved.fieldPath ?? '',
      formatEventSource(event),
      (event.message ?? '').trim(),
      firstSeen,
      count,
      event.metadata.name ?? '',
    ];
  },
} satisfies ResourceStrategy<CoreEvent>;

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

function referenceFields(prefix: string, reference: ObjectReference | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of REFERENCE_FIELDS) out[`${prefix}.${field}`] = reference?.[field] ?? '';
  return out;
}

/** eventFields are an event's field-selector fields, named as the view that serves it names them. */
function eventFields(event: CoreEvent, reference: string, reporting: string): Record<string, string> {
  return {
    'metadata.name': event.metadata.name ?? '',
    'metadata.namespace': event.metadata.namespace ?? '',
    ...referenceFields(reference, event.involvedObject),
    reason: event.reason ?? '',
    [reporting]: event.reportingComponent ?? '',
    source: event.source?.component ?? '',
    type: event.type ?? '',
  };
}

/** EVENT_STORE_KIND is where events live, whichever view wrote them. */
export const EVENT_STORE_KIND = 'cluster/events';

/** eventsV1View serves events at events.k8s.io/v1. */
export const eventsV1View = {
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  listKind: 'EventList',
  shortNames: ['ev'],
  categories: [],
  storeKind: EVENT_STORE_KIND,
  strategy: eventStrategy,
  schemas: EVENTS_V1_SCHEMAS,
  schemaName: EVENTS_V1_EVENT,
  listSchemaName: 'io.k8s.api.events.v1.EventList',
  toExternal: toEventsV1,
  toInternal: fromEventsV1,
  // The same stored fields under events.k8s.io/v1's names.
  selectableFields: (event) => eventFields(event, 'regarding', 'reportingController'),
} satisfies ResourceView<CoreEvent, EventsV1Event>;

/** coreEventsView serves the same events at core v1 (what `kubectl get events` and `describe` read). */
export const coreEventsView = {
  group: '',
  version: 'v1',
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  listKind: 'EventList',
  shortNames: ['ev'],
  categories: [],
  storeKind: EVENT_STORE_KIND,
  strategy: eventStrategy,
  schemas: CORE_V1_SCHEMAS,
  schemaName: CORE_V1_EVENT,
  listSchemaName: 'io.k8s.api.core.v1.EventList',
  toExternal: toCoreV1,
  toInternal: fromCoreV1,
  selectableFields: (event) => eventFields(event, 'involvedObject', 'reportingComponent'),
} satisfies ResourceView<CoreEvent, CoreEvent>;
