import { ApiError, INTERNAL_HEADERS } from '@connectivity/contracts';

export interface AccountSettingsUpdate {
  verified?: boolean | undefined;
  live_balance_cents?: number | undefined;
}

/**
 * Verification and the live balance belong to inventory (a live order debits the balance in
 * its own transaction), so the admin API passes them on to inventory's internal route.
 */
export async function putInventorySettings(
  options: { inventoryUrl: string; internalToken: string; timeoutMs: number; requestId: string },
  accountId: string,
  update: AccountSettingsUpdate,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${options.inventoryUrl.replace(/\/+$/, '')}/internal/accounts/${encodeURIComponent(accountId)}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        [INTERNAL_HEADERS.token]: options.internalToken,
        [INTERNAL_HEADERS.requestId]: options.requestId,
      },
      body: JSON.stringify(update),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw new ApiError('internal_error', { message: 'The inventory service is unavailable; the settings were not changed.', cause: error });
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const detail = (body as { error?: { message?: string } } | undefined)?.error?.message;
    throw new ApiError('internal_error', {
      message: `The inventory service refused the settings (HTTP ${response.status}).`,
      ...(detail !== undefined && { detail }),
    });
  }
  return body;
}
