/**
 * The banner's one-time sign-in ticket: derived from the admin token (so the banner, rendered
 * before the console is built, and the console agree without sharing state); the console accepts
 * it once per server start.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** signInTicket is the ticket of the banner's sign-in link for an admin token. */
export function signInTicket(adminToken: string): string {
  return createHmac('sha256', adminToken).update('fogbank console sign-in').digest('base64url').slice(0, 32);
}

/** sameSecret compares two secrets in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
