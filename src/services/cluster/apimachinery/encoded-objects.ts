/**
 * The JSON text of stored objects as a view presents them, kept for the objects read most
 * recently (the apiserver's watch cache keeps serialised objects for the same reason): a GET by
 * name of an unchanged object then costs no conversion and no serialisation. A store hands out
 * the same record object until the object changes, and a record is never changed in place, so
 * the record itself is the key; a new revision is a new record and misses. The number of records
 * kept is bounded, oldest first out, so memory stays flat however many objects are read.
 */
import { BoundedMap } from '../../../lib/bounded-map.ts';
import type { StoredRecord } from '../../../store/index.ts';

/** ENCODED_RECORDS is how many records keep their encodings. */
export const ENCODED_RECORDS = 4096;

/** EncodedObjects maps (record, form) to the text that form of the record serialises to. */
export class EncodedObjects {
  readonly #byRecord: BoundedMap<StoredRecord, Map<string, string>>;

  constructor(capacity: number = ENCODED_RECORDS) {
    this.#byRecord = new BoundedMap(capacity);
  }

  /** encoded returns the text of `record` in `form`, computed by `encode` when not kept yet. */
  encoded(record: StoredRecord, form: string, encode: () => string): string {
    let forms = this.#byRecord.get(record);
    const kept = forms?.get(form);
    if (kept !== undefined) return kept;
    const text = encode();
    if (forms === undefined) {
      forms = new Map();
      this.#byRecord.set(record, forms);
    }
    forms.set(form, text);
    return text;
  }

  /** size is how many records keep encodings. */
  get size(): number {
    return this.#byRecord.size;
  }
}
