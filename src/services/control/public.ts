/**
 * The control family's face (the /_fogbank admin API): what the layers above it (the console,
 * bench, cli) may use — the readers of an admin request's clock change and journal query, the
 * clock's state, and the family's typed error with its body check — so the routes and files
 * inside the family can change without them (test/architecture/ refuses any other import from
 * outside the family).
 */
export { type ClockChangeRequest, parseRfc3339, readClockChange } from './clock-body.ts';
export { type ClockState, clockState } from './clock-routes.ts';
export { controlErrorProblem } from './error-serializer.ts';
export { badRequest, ControlError } from './errors.ts';
export { readRequestsQuery } from './requests-query.ts';
