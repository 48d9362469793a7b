// The one error type that the CLI reports as a one-line message with a non-zero exit.

/** A problem with the user's input or options: reported without a stack trace. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** A UserError that was printed already (by world rank 0 of an MPI job): the CLI exits with its status, silently. */
export class ReportedUserError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'ReportedUserError';
  }
}
