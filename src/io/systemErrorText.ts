// Short text for a failed file-system call, for one-line user-facing messages.

/** `no such file`, an errno code such as `EACCES`, or the error's message. */
export function systemErrorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'no such file or directory';
    if (code === 'EACCES') return 'permission denied';
    if (code === 'EISDIR') return 'is a directory';
    return code ?? error.message;
  }
  return String(error);
}
