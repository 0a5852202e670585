/**
 * Airalo's OAuth2 access token, fetched once and kept until shortly before it expires: every call
 * takes the cached token, concurrent callers share one fetch, and a token the vendor refuses
 * (401) is dropped so that the next call fetches one new token, once, whoever asks first.
 */
export class TokenCache {
  private held: { value: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  private readonly fetchToken: () => Promise<{ value: string; expiresInSeconds: number }>;
  private readonly now: () => number;

  constructor(fetchToken: () => Promise<{ value: string; expiresInSeconds: number }>, now: () => number = Date.now) {
    this.fetchToken = fetchToken;
    this.now = now;
  }

  async get(): Promise<string> {
    if (this.held && this.now() < this.held.expiresAt) return this.held.value;
    this.pending ??= this.fetchToken()
      .then(({ value, expiresInSeconds }) => {
        // Renewed a minute early (or at 90 % of a short life), so no call carries a token that
        // expires on its way.
        const lifeMs = expiresInSeconds * 1000;
        this.held = { value, expiresAt: this.now() + Math.max(lifeMs * 0.9, lifeMs - 60_000) };
        return value;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** Drops `value` if it is still the held token (a 401 for an older one changes nothing). */
  invalidate(value: string): void {
    if (this.held?.value === value) this.held = undefined;
  }
}
