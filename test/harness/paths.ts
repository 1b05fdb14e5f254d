import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** REPO is the repository root. */
export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
