/** LogLevel names the verbosity of the structured request log. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

/** LOG_LEVELS lists the accepted levels, quietest first. */
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];

/** isLogLevel narrows a string to a LogLevel. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
