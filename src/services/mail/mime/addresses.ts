import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { Headers } from '@zone-eu/mailsplit';
import { invalidArgument } from '../errors.ts';
import { headerValues } from './header-block.ts';

/** RECIPIENT_HEADERS are the headers a message is delivered to, with the names Gmail's errors use. */
export const RECIPIENT_HEADERS = [
  { header: 'to', label: 'To' },
  { header: 'cc', label: 'Cc' },
  { header: 'bcc', label: 'Bcc' },
] as const;

/** Recipients are the addresses of a message's To, Cc and Bcc headers, lower-cased. */
export interface Recipients {
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
}

// A deliverable address: a local part and a dotted domain of DNS labels (Gmail refuses `human@f`).
const ADDRESS = /^[^\s@<>(),;:"[\]]+@(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** isDeliverableAddress is true for an address Gmail would deliver to. */
export function isDeliverableAddress(address: string): boolean {
  return ADDRESS.test(address);
}

/**
 * readRecipients reads and checks To, Cc and Bcc: every address must be deliverable, or the
 * request fails with Gmail's `Invalid To header` (`Invalid Cc header`, `Invalid Bcc header`).
 * Groups (`team: a@x.com, b@x.com;`) contribute their members.
 */
export function readRecipients(headers: Headers): Recipients {
  const found: Record<string, string[]> = { to: [], cc: [], bcc: [] };
  for (const { header, label } of RECIPIENT_HEADERS) {
    for (const value of headerValues(headers, header)) {
      for (const address of addressparser(value, { flatten: true }).map((entry) => entry.address)) {
        if (!isDeliverableAddress(address)) throw invalidArgument(`Invalid ${label} header`);
        found[header]!.push(address.toLowerCase());
      }
    }
  }
  return { to: found['to']!, cc: found['cc']!, bcc: found['bcc']! };
}

/** allRecipients lists every distinct recipient once, in To, Cc, Bcc order. */
export function allRecipients(recipients: Recipients): string[] {
  return [...new Set([...recipients.to, ...recipients.cc, ...recipients.bcc])];
}

/** addressesOf lists the addresses of a header value (`"Ann" <ann@x.com>` → `ann@x.com`), lower-cased. */
export function addressesOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  return addressparser(value, { flatten: true })
    .map((entry) => entry.address)
    .filter((address) => address !== '')
    .map((address) => address.toLowerCase());
}
