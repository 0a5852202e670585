import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf } from '@connectivity/platform';

/** A connection as `user` (with the inbox its service uses), or none: what the server says. */
export async function connectAs(url: string, user?: { name: string; password: string }): Promise<NatsConnection> {
  return connect({
    servers: url,
    maxReconnectAttempts: 0,
    ...(user && { user: user.name, pass: user.password, name: user.name, inboxPrefix: inboxPrefixOf(user.name) }),
  });
}

const isPermissionViolation = (error: unknown): boolean =>
  error instanceof errors.PermissionViolationError || (error instanceof Error && error.cause instanceof errors.PermissionViolationError);

/**
 * Whether the server refuses `user` publishing to `subject`: sent as a request, so the refusal
 * comes back to this call (a permitted subject answers, or has no responders, or times out).
 */
export async function publishRefused(nc: NatsConnection, subject: string, payload = '{}'): Promise<boolean> {
  try {
    await nc.request(subject, payload, { timeout: 1_000 });
    return false;
  } catch (error) {
    return isPermissionViolation(error);
  }
}

/** Whether the server refuses a subscription to `subject` (it closes the subscription with the violation). */
export async function subscribeRefused(nc: NatsConnection, subject: string): Promise<boolean> {
  const sub = nc.subscribe(subject);
  const outcome = await Promise.race([sub.closed, new Promise((resolve) => setTimeout(() => resolve('open'), 1_000))]);
  if (outcome === 'open') sub.unsubscribe();
  return isPermissionViolation(outcome);
}
