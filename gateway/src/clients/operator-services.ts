import {
  ApiError,
  INTERNAL_HEADERS,
  internalAccountsContract,
  internalCatalogueAccountsContract,
  internalInventoryReleasesContract,
  isApiError,
  type AccountSettings,
  type BalanceTransaction,
  type List,
  type Refund,
  type SupplierRelease,
} from '@connectivity/contracts';
import { createInternalClient, errorMessage, UpstreamFailure, type InternalClient } from '@connectivity/platform';
import type { z } from 'zod';

type SettingsChange = z.input<typeof internalAccountsContract.putAccountSettings.body>;
type ReleasesQuery = z.input<typeof internalInventoryReleasesContract.listSupplierReleases.query>;
type Credit = z.input<typeof internalAccountsContract.creditAccount.body>;

/**
 * The operator's calls the admin API passes on to the service that owns the setting or the
 * record: verification, the live balance and the supplier releases to inventory, the
 * live-ordering switch to catalogue. Each carries the admin request's id.
 */
export interface OperatorServices {
  putAccountSettings(accountId: string, change: SettingsChange, requestId: string): Promise<AccountSettings>;
  /** Whether live ordering is on after the change. */
  putLiveOrdering(accountId: string, enabled: boolean, requestId: string): Promise<boolean>;
  listSupplierReleases(query: ReleasesQuery, requestId: string): Promise<List<SupplierRelease>>;
  retrySupplierRelease(releaseId: string, requestId: string): Promise<SupplierRelease>;
  /** Money added to the live balance (a `credit`). */
  creditAccount(accountId: string, credit: Credit, requestId: string): Promise<BalanceTransaction>;
  /** A vendor's decision on a refund it reviews, recorded from its notice. */
  settleRefund(refundId: string, status: 'succeeded' | 'failed', requestId: string): Promise<Refund>;
}

export interface OperatorServicesOptions {
  inventoryUrl: string;
  catalogueUrl: string;
  internalToken: string;
  timeoutMs: number;
}

/**
 * The owning services' internal contracts through the platform's internal client: paths built
 * from the contract, parameters validated and encoded, the services' refusals back as ApiErrors.
 */
export function createOperatorServices(options: OperatorServicesOptions): OperatorServices {
  const client = (service: string, baseUrl: string) =>
    createInternalClient({ service, baseUrl, internalToken: options.internalToken, timeoutMs: options.timeoutMs });
  const inventory = client('inventory', options.inventoryUrl);
  const catalogue = client('catalogue', options.catalogueUrl);
  const headers = (requestId: string) => ({ [INTERNAL_HEADERS.requestId]: requestId });
  return {
    putAccountSettings: (accountId, change, requestId) =>
      setting(inventory, () =>
        inventory.call(internalAccountsContract.putAccountSettings, { params: { accountId }, body: change, headers: headers(requestId) }),
      ),
    putLiveOrdering: async (accountId, enabled, requestId) => {
      const answer = await setting(catalogue, () =>
        catalogue.call(internalCatalogueAccountsContract.putLiveOrdering, { params: { accountId }, body: { enabled }, headers: headers(requestId) }),
      );
      return answer.enabled;
    },
    listSupplierReleases: (query, requestId) =>
      passedOn(inventory, () => inventory.call(internalInventoryReleasesContract.listSupplierReleases, { query, headers: headers(requestId) })),
    retrySupplierRelease: (releaseId, requestId) =>
      passedOn(inventory, () => inventory.call(internalInventoryReleasesContract.retrySupplierRelease, { params: { releaseId }, headers: headers(requestId) })),
    creditAccount: (accountId, credit, requestId) =>
      passedOn(inventory, () => inventory.call(internalAccountsContract.creditAccount, { params: { accountId }, body: credit, headers: headers(requestId) })),
    settleRefund: (refundId, status, requestId) =>
      passedOn(inventory, () => inventory.call(internalAccountsContract.settleRefund, { params: { refundId }, body: { status }, headers: headers(requestId) })),
  };
}

/** A setting another service owns: whatever goes wrong there, the operator is told it was not changed. */
async function setting<T>(client: InternalClient, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UpstreamFailure) {
      throw new ApiError('internal_error', { message: `The ${client.service} service is unavailable; the settings were not changed.`, cause: error });
    }
    throw new ApiError('internal_error', {
      message: `The ${client.service} service refused the settings${httpStatus(error)}.`,
      detail: errorMessage(error),
      cause: error,
    });
  }
}

/**
 * A call the owning service answers: its refusals (a bad filter, an unknown id, a move not
 * allowed) reach the operator as they are, so the CLI can say what to fix; a service that is
 * down or fails is internal_error.
 */
async function passedOn<T>(client: InternalClient, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isApiError(error) && error.status < 500) throw error;
    if (error instanceof UpstreamFailure) throw new ApiError('internal_error', { message: `The ${client.service} service is unavailable.`, cause: error });
    throw new ApiError('internal_error', { message: `The ${client.service} service failed${httpStatus(error)}.`, detail: errorMessage(error), cause: error });
  }
}

/** The status a service answered with, when it sent the error object that says so. */
const httpStatus = (error: unknown) => (isApiError(error) ? ` (HTTP ${error.status})` : '');
