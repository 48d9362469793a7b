// Typed arrays past 4 GiB in messages between threads.
//
// Node's structured clone (worker messages, workerData) keeps a typed array's byte offset and length in 32 bits
// (V8's serializer): a view that ends at or past byte 2^32 of its buffer arrives truncated (a 4 GiB block's words
// as an empty array, a view at offset 4 GiB + 4 KiB as one at 4 KiB) or not at all. Messages that carry blocks go
// through these two functions: such views travel as their buffer (shared or transferred, never copied), offset and
// length, and are rebuilt on arrival. Everything else passes as it is.

const VIEW_MARK = 'snptally.largeView';

const VIEW_KINDS = {
  Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array,
} as const;
type ViewKind = keyof typeof VIEW_KINDS;

/** A view that structured clone would truncate, as plain data. */
interface EncodedView {
  readonly [VIEW_MARK]: ViewKind;
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  readonly length: number;
}

/** Largest byte end a view may have to survive structured clone. */
const MAX_CLONED_VIEW_END = 2 ** 32 - 1;

/**
 * `message` with every typed array that ends past 4 GiB of its buffer replaced by plain data that survives the
 * clone (`decodeLargeViews` restores it). Plain objects and arrays are walked; other objects pass unchanged, and
 * so does everything when no such view is found (no copy of the message is made then).
 */
export function encodeLargeViews(message: unknown): unknown {
  if (ArrayBuffer.isView(message)) {
    if (message.byteOffset + message.byteLength <= MAX_CLONED_VIEW_END) return message;
    const kind = viewKindOf(message);
    const encoded: EncodedView = { [VIEW_MARK]: kind, buffer: message.buffer, byteOffset: message.byteOffset, length: message.byteLength / VIEW_KINDS[kind].BYTES_PER_ELEMENT };
    return encoded;
  }
  return mapChildren(message, encodeLargeViews);
}

/** The message `encodeLargeViews` encoded, with its large views rebuilt (over the same memory). */
export function decodeLargeViews<T>(message: unknown): T {
  return decodeValue(message) as T;
}

function decodeValue(value: unknown): unknown {
  if (isEncodedView(value)) {
    // Every kind's constructor takes (buffer, byteOffset, length); TS's lib types split shared and plain buffers.
    const View = VIEW_KINDS[value[VIEW_MARK]] as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => ArrayBufferView;
    return new View(value.buffer, value.byteOffset, value.length);
  }
  return mapChildren(value, decodeValue);
}

/**
 * `value` with `map` applied to each element or property when it is an array or a plain object; itself if nothing changed.
 * Nothing is allocated until a child changes: every task message passes here twice (encode, decode), ~300 messages
 * of ~120 values in a 2-thread epistasis run, nearly all without a large view.
 */
function mapChildren(value: unknown, map: (child: unknown) => unknown): unknown {
  if (Array.isArray(value)) {
    let mapped: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      const mappedChild = map(child);
      if (mappedChild !== child && mapped === null) mapped = value.slice();
      if (mapped !== null) mapped[i] = mappedChild;
    }
    return mapped ?? value;
  }
  if (!isPlainObject(value)) return value;
  let mapped: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const mappedChild = map(child);
    if (mappedChild !== child && mapped === null) mapped = { ...value };
    if (mapped !== null) mapped[key] = mappedChild;
  }
  return mapped ?? value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isEncodedView(value: unknown): value is EncodedView {
  return isPlainObject(value) && typeof value[VIEW_MARK] === 'string' && value[VIEW_MARK] in VIEW_KINDS;
}

function viewKindOf(view: ArrayBufferView): ViewKind {
  for (const kind of Object.keys(VIEW_KINDS) as ViewKind[]) if (view instanceof VIEW_KINDS[kind]) return kind;
  throw new TypeError(`a ${view.constructor.name} past 4 GiB cannot be sent to another thread`);
}
