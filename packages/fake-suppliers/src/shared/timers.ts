/**
 * Work a fake has taken on and does later (a slowed request, an order still processing). Closing
 * the fake cancels what is still waiting, so nothing runs against a fake (or state file) that is gone.
 */
export class Timers {
  private readonly waiting = new Set<NodeJS.Timeout>();

  after(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.waiting.delete(timer);
      work();
    }, ms);
    this.waiting.add(timer);
  }

  cancelAll(): void {
    for (const timer of this.waiting) clearTimeout(timer);
    this.waiting.clear();
  }
}
