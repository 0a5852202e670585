/**
 * Polls `check` until it stops throwing (its assertions pass), or rethrows its last error after
 * `timeoutMs`: for what another process or a background loop makes true a little later.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
