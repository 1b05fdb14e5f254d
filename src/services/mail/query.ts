import { invalidArgument } from './errors.ts';
import type { MessageRecord } from './model.ts';

/** QueryContext is what a predicate may look up besides the message: user label names and the message's search text. */
export interface QueryContext {
  readonly labelNames: ReadonlyMap<string, string>;
  /** textOf is the message's lower-cased text (kept once per raw; preloaded by the caller when `needsText`). */
  textOf(message: MessageRecord): string;
}

/** MessagePredicate tests one message against a parsed `q`. */
export type MessagePredicate = (message: MessageRecord, context: QueryContext) => boolean;

/** ParsedQuery is a `q` ready to test messages; `needsText` says whether it has free-text terms. */
export interface ParsedQuery {
  readonly matches: MessagePredicate;
  readonly needsText: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * parseQuery reads Gmail's search syntax: `from: to: cc: bcc: subject: label: in: is: has:
 * after: before: older_than: newer_than: rfc822msgid:` and free text (quoted phrases too), each
 * term optionally negated with `-`; all terms must hold. `now` anchors newer_than/older_than.
 */
export function parseQuery(q: string, now: number): ParsedQuery {
  const terms = [...q.matchAll(/(-?)(?:([a-z_0-9]+):)?("([^"]*)"|\S+)/gi)].map((match) => {
    const negated = match[1] === '-';
    const operator = match[2]?.toLowerCase();
    const value = (match[4] ?? match[3]!).toLowerCase();
    return { negated, operator, test: termTest(operator, value, now) };
  });
  return {
    matches: (message, context) => terms.every(({ negated, test }) => test(message, context) !== negated),
    needsText: terms.some(({ operator }) => operator === undefined || !KNOWN_OPERATORS.has(operator)),
  };
}

const KNOWN_OPERATORS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'rfc822msgid',
  'label',
  'in',
  'is',
  'has',
  'after',
  'newer',
  'before',
  'older',
  'newer_than',
  'older_than',
]);

function termTest(operator: string | undefined, value: string, now: number): MessagePredicate {
  const includes = (list: readonly string[]): boolean => list.some((entry) => entry.includes(value));
  switch (operator) {
    case undefined:
      return (m, c) => m.search.subject.toLowerCase().includes(value) || c.textOf(m).includes(value) || includes(m.search.from) || includes(m.search.to);
    case 'from':
      return (m) => includes(m.search.from);
    case 'to':
      return (m) => includes(m.search.to);
    case 'cc':
      return (m) => includes(m.search.cc);
    case 'bcc':
      return (m) => includes(m.search.bcc);
    case 'subject':
      return (m) => m.search.subject.toLowerCase().includes(value);
    case 'rfc822msgid':
      return (m) => m.search.rfc822msgid.toLowerCase() === value.replace(/^<|>$/g, '');
    case 'label':
    case 'in': {
      const wanted = value.replace(/[-/ ]/g, '_');
      return (m, c) =>
        m.labelIds.some((id) => id.toLowerCase() === wanted || (c.labelNames.get(id) ?? '').toLowerCase().replace(/[-/ ]/g, '_') === wanted) ||
        wanted === 'anywhere';
    }
    case 'is':
      switch (value) {
        case 'unread':
          return (m) => m.labelIds.includes('UNREAD');
        case 'read':
          return (m) => !m.labelIds.includes('UNREAD');
        case 'starred':
          return (m) => m.labelIds.includes('STARRED');
        case 'important':
          return (m) => m.labelIds.includes('IMPORTANT');
        default:
          throw invalidArgument(`Invalid search query: is:${value}`);
      }
    case 'has':
      if (value === 'attachment') return (m) => m.search.hasAttachment;
      throw invalidArgument(`Invalid search query: has:${value}`);
    case 'after':
    case 'newer': {
      const at = dateValue(value);
      return (m) => m.internalDate >= at;
    }
    case 'before':
    case 'older': {
      const at = dateValue(value);
      return (m) => m.internalDate < at;
    }
    case 'newer_than':
      return (
        (since) => (m: MessageRecord) =>
          m.internalDate >= since
      )(now - durationValue(value));
    case 'older_than':
      return (
        (until) => (m: MessageRecord) =>
          m.internalDate < until
      )(now - durationValue(value));
    default: {
      // An unknown operator is ordinary text to Gmail (`foo:bar` matches the words).
      const text = `${operator}:${value}`;
      return (m, c) => m.search.subject.toLowerCase().includes(text) || c.textOf(m).includes(text);
    }
  }
}

/** dateValue reads `YYYY/MM/DD` (also `-` separated; midnight UTC) or epoch seconds. */
function dateValue(value: string): number {
  if (/^\d{9,}$/.test(value)) return Number(value) * 1000;
  const match = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$/.exec(value);
  if (match === null) throw invalidArgument(`Invalid search query: date '${value}'`);
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
}

/** durationValue reads newer_than/older_than amounts: `2d`, `3m` (months), `1y`. */
function durationValue(value: string): number {
  const match = /^(\d+)([dmy])$/.exec(value);
  if (match === null) throw invalidArgument(`Invalid search query: duration '${value}'`);
  const amount = Number(match[1]);
  return amount * DAY_MS * (match[2] === 'd' ? 1 : match[2] === 'm' ? 30 : 365);
}
