import type { GeneratedCodeInfo } from '@bufbuild/protobuf/wkt';
import { updateCodeInfo } from './code-info.ts';
import type { CompatMode } from './compat.ts';
import { bufInsert, protocInsert } from './insert-content.ts';

/** OpenStream is one response chunk being accumulated; chunks with no name append to it. */
export interface OpenStream {
  readonly name: string;
  readonly insertionPoint: string;
  readonly info: GeneratedCodeInfo | undefined;
  readonly chunks: Buffer[];
  /** generator is the plugin that opened it (buf names it in duplicate-file errors). */
  readonly generator: string;
}

/**
 * OutputContext is one output location's in-memory tree, shared by every generator writing to
 * the same location string, which is what lets one generator insert into another's file.
 * Errors found while closing a stream are printed at once and only fail the run at write time,
 * mirroring protoc's `had_error_`.
 */
export class OutputContext {
  /** files maps each relative name to its bytes; a failed insert leaves an empty entry, as in protoc. */
  readonly files = new Map<string, Buffer>();
  /** writers remembers which generator wrote each file, for buf's duplicate message. */
  private readonly writers = new Map<string, string>();
  hadError = false;

  constructor(
    /** location is the normalised output location (trailing `/` added). */
    readonly location: string,
    private readonly mode: CompatMode,
    /** report prints a diagnostic immediately, in protoc's stderr order. */
    readonly report: (text: string) => void,
  ) {}

  /** close finishes a stream: a plain file is stored, an insertion is applied to its target. */
  close(stream: OpenStream): void {
    const data = stream.chunks.length === 1 ? (stream.chunks[0] as Buffer) : Buffer.concat(stream.chunks);
    if (this.mode === 'buf') this.closeBuf(stream, data);
    else this.closeProtoc(stream, data);
  }

  private closeProtoc(stream: OpenStream, content: Buffer): void {
    const { name } = stream;
    const existing = this.files.get(name);
    if (existing === undefined) this.files.set(name, Buffer.alloc(0));
    if (stream.insertionPoint === '') {
      if (existing !== undefined) {
        this.fail(`${name}: Tried to write the same file twice.\n`);
        return;
      }
      this.files.set(name, content);
      return;
    }
    if (existing === undefined) {
      this.fail(`${name}: Tried to insert into file that doesn't exist.\n`);
      return;
    }
    const result = protocInsert(existing, stream.insertionPoint, content);
    if (result === undefined) {
      this.fail(`${name}: insertion point "${stream.insertionPoint}" not found.\n`);
      return;
    }
    this.files.set(name, result.file);
    const inserted = result.file.length - existing.length;
    const metaName = `${name}.pb.meta`;
    const meta = updateCodeInfo(this.files.get(metaName), stream.info, result.data, result.offset, inserted, result.indent);
    if (meta instanceof Error) this.report(`${metaName}: ${meta.message}\n`);
    else if (meta !== undefined) this.files.set(metaName, Buffer.from(meta));
  }

  private closeBuf(stream: OpenStream, content: Buffer): void {
    const { name } = stream;
    const existing = this.files.get(name);
    if (stream.insertionPoint === '') {
      if (existing !== undefined) {
        // Duplicates inside one response were dropped by the caller, so this is another plugin.
        this.fail(
          `Failure: file "${this.location}${name}" was generated multiple times: once by plugin "${this.writers.get(name) ?? ''}" and again by plugin "${stream.generator}"\n`,
        );
        return;
      }
      this.files.set(name, content);
      this.writers.set(name, stream.generator);
      return;
    }
    if (existing === undefined) {
      this.fail(`Failure: plugin ${stream.generator}: read ${name}: file does not exist\n`);
      return;
    }
    const result = bufInsert(existing, stream.insertionPoint, content);
    if (result === undefined) {
      this.fail(`Failure: plugin ${stream.generator}: could not find insertion point "${stream.insertionPoint}" in "${name}"\n`);
      return;
    }
    this.files.set(name, result);
  }

  private fail(message: string): void {
    this.report(message);
    this.hadError = true;
  }
}
