/**
 * Schemas of the two Event shapes: events.k8s.io/v1 and the core v1 view of the same objects.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { listSchema, META_SCHEMAS, OBJECT_REFERENCE, TYPE_FIELDS } from './meta-schemas.ts';

const str = (description: string): Schema => ({ type: 'string', description });

const EVENTS = 'io.k8s.api.events.v1';
const CORE = 'io.k8s.api.core.v1';

/** EVENTS_V1_EVENT is the component name of events.k8s.io/v1 Event. */
export const EVENTS_V1_EVENT = `${EVENTS}.Event`;
/** CORE_V1_EVENT is the component name of core v1 Event. */
export const CORE_V1_EVENT = `${CORE}.Event`;

const EVENT_SOURCE: Schema = {
  type: 'object',
  goName: 'EventSource',
  description: 'EventSource contains information for an event.',
  properties: { component: str('Component from which the event is generated.'), host: str('Node name on which the event is generated.') },
};

/** EVENTS_V1_SCHEMAS describe events.k8s.io/v1. */
export const EVENTS_V1_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [EVENTS_V1_EVENT]: {
    type: 'object',
    goName: 'Event',
    description:
      'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.',
    required: ['eventTime'],
    properties: {
      ...TYPE_FIELDS,
      eventTime: { type: 'string', format: 'micro-time', description: 'eventTime is the time when this Event was first observed. It is required.' },
      series: { $ref: `${EVENTS}.EventSeries` },
      reportingController: str(
        'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.',
      ),
      reportingInstance: str(
        'reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.',
      ),
      action: str(
        'action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
      ),
      reason: str(
        'reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
      ),
      regarding: { $ref: OBJECT_REFERENCE },
      related: { $ref: OBJECT_REFERENCE },
      note: str(
        'note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.',
      ),
      type: str(
        'type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.',
      ),
      deprecatedSource: { $ref: `${CORE}.EventSource` },
      deprecatedFirstTimestamp: {
        type: 'string',
        format: 'date-time',
        description: 'deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
      },
      deprecatedLastTimestamp: {
        type: 'string',
        format: 'date-time',
        description: 'deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
      },
      deprecatedCount: {
        type: 'integer',
        format: 'int32',
        description: 'deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.',
      },
    },
  },
  [`${EVENTS}.EventSeries`]: {
    type: 'object',
    goName: 'EventSeries',
    description: 'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.',
    required: ['count', 'lastObservedTime'],
    properties: {
      count: { type: 'integer', format: 'int32', description: 'count is the number of occurrences in this series up to the last heartbeat time.' },
      lastObservedTime: {
        type: 'string',
        format: 'micro-time',
        description: 'lastObservedTime is the time when last Event from the series was seen before last heartbeat.',
      },
    },
  },
  [`${CORE}.EventSource`]: EVENT_SOURCE,
  [`${EVENTS}.EventList`]: listSchema('EventList', EVENTS_V1_EVENT, 'EventList is a list of Event objects.'),
};

/** CORE_EVENT_SCHEMAS describe the core v1 Event (part of the core v1 document). */
export const CORE_EVENT_SCHEMAS: SchemaSet = {
  [CORE_V1_EVENT]: {
    type: 'object',
    goName: 'Event',
    description:
      'Event is a report of an event somewhere in the cluster.  Events have a limited retention time and triggers and messages may evolve with time.',
    required: ['metadata', 'involvedObject'],
    properties: {
      ...TYPE_FIELDS,
      involvedObject: { $ref: OBJECT_REFERENCE },
      reason: str("This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
      message: str('A human-readable description of the status of this operation.'),
      source: { $ref: `${CORE}.EventSource` },
      firstTimestamp: {
        type: 'string',
        format: 'date-time',
        description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      },
      lastTimestamp: { type: 'string', format: 'date-time', description: 'The time at which the most recent occurrence of this event was recorded.' },
      count: { type: 'integer', format: 'int32', description: 'The number of times this event has occurred.' },
      type: str('Type of this event (Normal, Warning), new types could be added in the future'),
      eventTime: { type: 'string', format: 'micro-time', description: 'Time when this Event was first observed.' },
      series: { $ref: `${CORE}.EventSeries` },
      action: str('What action was taken/failed regarding to the Regarding object.'),
      related: { $ref: OBJECT_REFERENCE },
      reportingComponent: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.'),
      reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
    },
  },
  [`${CORE}.EventSeries`]: {
    type: 'object',
    goName: 'EventSeries',
    description: 'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.',
    properties: {
      count: { type: 'integer', format: 'int32', description: 'Number of occurrences in this series up to the last heartbeat time' },
      lastObservedTime: { type: 'string', format: 'micro-time', description: 'Time of the last occurrence observed' },
    },
  },
  [`${CORE}.EventSource`]: EVENT_SOURCE,
  [`${CORE}.EventList`]: listSchema('EventList', CORE_V1_EVENT, 'EventList is a list of events.'),
};
