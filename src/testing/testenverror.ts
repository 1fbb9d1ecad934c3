/** The error of a test environment that cannot start (bad options, missing files, a failed install). */
export class TestEnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TestEnvError";
  }
}
