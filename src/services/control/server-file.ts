/**
 * The file a running server leaves in its data directory for the command line's client commands
 * (`fogbank clock`, `fogbank requests`): where it listens. The admin token is beside it
 * (`admin-token`), written by core.
 */

/** SERVER_FILE is the file's name under the data directory. */
export const SERVER_FILE = 'server.json';

/** ServerFile is what it says: the base URL and the process that wrote it. */
export interface ServerFile {
  readonly url: string;
  readonly pid: number;
}

/** serverFileText writes the file for a server listening at `url`. */
export function serverFileText(url: string): string {
  return `${JSON.stringify({ url, pid: process.pid } satisfies ServerFile)}\n`;
}
