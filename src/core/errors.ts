// The one error type that the CLI reports as a one-line message with a non-zero exit.

/** A problem with the user's input or options: reported without a stack trace. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}
