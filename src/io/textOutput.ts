// Text written to stdout or to a file: a file is written under a temporary name (gzip-compressed when its name ends
// in `.gz`: one stream, or members compressed on the thread pool) and renamed into place by `commit`; an existing file
// is replaced only when asked.
import { createWriteStream, existsSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { createGzip, gzip, type Gzip } from 'node:zlib';
import { UserError } from '../core/errors.js';
import { commitStagedFiles, type StagedFile } from './stagedFiles.js';
import { systemErrorText } from './systemErrorText.js';
import { temporaryPathFor } from './temporaryFiles.js';

/** Text gathered before one write (fewer, larger writes). */
const FLUSH_CHARS = 1 << 20;

/** How a text file is opened. */
export interface TextFileOptions {
  /** Replace an existing file of that name. */
  readonly force: boolean;
  /**
   * A `.gz` file as one gzip member per write (still one valid gzip file), each compressed on libuv's thread pool as
   * soon as it is written, several at once, and appended in order: for writers of large byte chunks (writeBytes).
   */
  readonly gzipMembers?: boolean;
}

/** Whether a file of this name is written gzip-compressed. */
export function isGzipName(path: string): boolean {
  return path.endsWith('.gz');
}

/** A sink of text: stdout, or a staged (optionally gzip) file. */
export class TextOutput {
  private pending: string[] = [];
  private pendingChars = 0;
  private failure: unknown = null;
  /** gzipMembers: the members' writes, in order (each after the one before it and its own compression). */
  private memberWrites: Promise<void> = Promise.resolve();

  private constructor(
    private readonly target: Writable,
    private readonly file: { readonly staged: StagedFile; readonly stream: WriteStream; readonly gzip: Gzip | null; readonly members: boolean } | null,
  ) {
    for (const stream of file === null ? [] : [file.stream, file.gzip]) stream?.on('error', (error: Error) => { this.failure ??= error; });
  }

  /** Text to stdout (a closed pipe ends the process quietly: see cli/stdout.ts). */
  static toStdout(): TextOutput {
    return new TextOutput(process.stdout, null);
  }

  /**
   * Text to `path`, under a temporary name until `commit`.
   * @throws UserError when the file exists and `force` is not set, or cannot be created.
   */
  static async toFile(path: string, options: TextFileOptions): Promise<TextOutput> {
    if (!options.force && existsSync(path)) throw new UserError(`${path} exists: give --force to replace it`);
    const temporaryPath = temporaryPathFor(path);
    const stream = createWriteStream(temporaryPath, { flags: 'wx' });
    try {
      await once(stream, 'open');
    } catch (error) {
      rmSync(temporaryPath, { force: true });
      throw new UserError(`cannot write ${path}: ${systemErrorText(error)}`);
    }
    const members = isGzipName(path) && options.gzipMembers === true;
    const gzip = isGzipName(path) && !members ? createGzip() : null;
    if (gzip !== null) gzip.pipe(stream);
    return new TextOutput(gzip ?? stream, { staged: { finalPath: path, temporaryPath }, stream, gzip, members });
  }

  /** Adds text (written in large pieces, waiting when the target's buffer is full). */
  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= FLUSH_CHARS) await this.flush();
  }

  /**
   * Adds bytes after the text so far; resolves once they are consumed (written, or compressed with gzipMembers), when
   * the caller may reuse them. Calls may overlap: the bytes go out in the order of the calls.
   */
  writeBytes(bytes: Uint8Array): Promise<void> {
    this.throwIfFailed();
    const text = this.takePending();
    if (this.file?.members === true) {
      // Its failure also reaches commit through memberWrites.
      if (text !== null) this.writeMember(Buffer.from(text, 'utf8')).catch(() => undefined);
      return this.writeMember(bytes);
    }
    if (text !== null) this.target.write(text);
    // The write's callback, not 'drain': a small write returns true while the stream still holds the buffer.
    return new Promise<void>((done) => { this.target.write(bytes, () => done()); }).then(() => this.throwIfFailed());
  }

  /** Compresses `bytes` as one gzip member now (pool thread) and appends it after the members before; resolves once compressed. */
  private writeMember(bytes: Uint8Array): Promise<void> {
    const compressed = new Promise<Buffer>((done, fail) => { gzip(bytes, (error, member) => (error === null ? done(member) : fail(error))); });
    const previous = this.memberWrites;
    this.memberWrites = (async () => {
      const member = await compressed;
      await previous;
      await new Promise<void>((done) => { this.target.write(member, () => done()); });
    })();
    // Its failure reaches commit (which awaits every member): not an unhandled rejection meanwhile.
    this.memberWrites.catch(() => undefined);
    return compressed.then(() => undefined);
  }

  /** The pending text as one string (null when none), no longer pending. */
  private takePending(): string | null {
    if (this.pending.length === 0) return null;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    return text;
  }

  /** Writes what is pending; for a file, completes it and renames it into place. */
  async commit(): Promise<void> {
    await this.flush();
    await this.memberWrites;
    if (this.file === null) return;
    const { staged, stream, gzip } = this.file;
    const finished = once(stream, 'close');
    (gzip ?? stream).end();
    try {
      await finished;
    } catch (error) {
      this.failure ??= error;
    }
    this.throwIfFailed();
    commitStagedFiles([staged]);
  }

  /** Removes the unfinished file (after a failure). */
  discard(): void {
    if (this.file === null) return;
    this.file.gzip?.destroy();
    this.file.stream.destroy();
    rmSync(this.file.staged.temporaryPath, { force: true });
  }

  private async flush(): Promise<void> {
    this.throwIfFailed();
    const text = this.takePending();
    if (text === null) return;
    if (this.file?.members === true) {
      await this.writeMember(Buffer.from(text, 'utf8'));
      return;
    }
    if (!this.target.write(text)) await this.drained();
    this.throwIfFailed();
  }

  /** Resolves when the target has drained, or failed (the error handlers keep the error): one pair of listeners, removed again. */
  private async drained(): Promise<void> {
    const streams: Writable[] = this.file === null ? [this.target] : [this.file.stream, ...(this.file.gzip === null ? [] : [this.file.gzip])];
    await new Promise<void>((done) => {
      const finish = (): void => {
        this.target.off('drain', finish);
        for (const stream of streams) stream.off('error', finish);
        done();
      };
      this.target.on('drain', finish);
      for (const stream of streams) stream.on('error', finish);
    });
  }

  private throwIfFailed(): void {
    if (this.failure !== null && this.file !== null) {
      throw new UserError(`cannot write ${this.file.staged.finalPath}: ${systemErrorText(this.failure)}`);
    }
  }
}
