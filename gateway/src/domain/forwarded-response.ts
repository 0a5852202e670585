/**
 * A service's answer as the edge sends it on: the exact bytes the service sent (JSON or an
 * image), or text the edge wrote itself.
 */
export interface ForwardedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}
