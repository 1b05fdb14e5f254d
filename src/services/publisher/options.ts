/** The publishing family's settings (core/family-options.ts): the largest upload accepted. */
import { type FamilyOption, OptionError } from '../../core/family-options.ts';
import { parseByteSize } from '../../lib/byte-size.ts';

/** DEFAULT_UPLOAD_LIMIT is the largest bundle accepted when none is configured: 2 GiB, well below Play's 10 GiB. */
export const DEFAULT_UPLOAD_LIMIT = 2 * 1024 ** 3;

/** APK_UPLOAD_LIMIT is Play's own limit for uploadapk (discovery `maxSize` 1073741824). */
export const APK_UPLOAD_LIMIT = 1024 ** 3;

/** UPLOAD_LIMIT_OPTION is `--upload-limit` (start() option `uploadLimit`, in bytes). */
export const UPLOAD_LIMIT_OPTION: FamilyOption<number> = {
  key: 'uploadLimit',
  flag: 'upload-limit',
  value: 'BYTES|NK|NM|NG',
  default: '2G (APKs: 1G)',
  help: 'largest app bundle or APK accepted by the publishing API',
  parse(text) {
    // Binary multiples, as upload limits are usually written (512M is 512 MiB).
    const bytes = parseByteSize(text);
    if (bytes === undefined || bytes <= 0) throw new OptionError(`--upload-limit must be a positive number of bytes, optionally with K, M or G, not '${text}'`);
    return bytes;
  },
  accepts: (value): value is number => Number.isSafeInteger(value) && (value as number) > 0,
};

/** PublisherStartOptions are the publishing family's start() options. */
export interface PublisherStartOptions {
  /** Largest accepted media upload (bundles, APKs), in bytes. */
  readonly uploadLimit?: number;
}
