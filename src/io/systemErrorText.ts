// Short text for a failed file-system call, for one-line user-facing messages: what failed, in words.

/** Words for the errno codes people meet with files; anything else keeps its code. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory (a path component is a file)',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EEXIST: 'file exists',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENXIO: 'no such device or address',
  ENODEV: 'no such device',
  EBUSY: 'device or resource busy',
  EXDEV: 'not on the same file system',
  ETXTBSY: 'text file busy',
  EINVAL: 'invalid argument',
};

/** What failed in words (`no space left on device`), its code when it has none here, else the error's message. */
export function systemErrorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) return error.message;
    return ERRNO_WORDS[code] ?? code;
  }
  return String(error);
}
