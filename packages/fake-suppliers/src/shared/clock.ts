/** The fakes' time: the real clock plus an offset a test moves forward (expiry without waiting). */
export class Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  travel(ms: number): void {
    this.offsetMs += ms;
  }
}
