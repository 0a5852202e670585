import { contract, type Contract } from '@connectivity/contracts/public';
import { initClient, type InitClientReturn } from '@ts-rest/core';

export interface ClientOptions {
  /** The API key: `sk_test_...` for the sandbox, `sk_live_...` for live. */
  apiKey: string;
  /** Base URL of the service, e.g. `http://localhost:8080` for a local sandbox. */
  baseUrl: string;
  /** Pin a version explicitly instead of relying on the account's pinned version. */
  serviceVersion?: string;
}

/**
 * A typed client for the whole public API, generated from the same contract the server is
 * built from: every path, parameter and response shape is checked at compile time. Calls
 * resolve to `{ status, body, headers }`; error statuses carry the spec's error object.
 */
export function createClient(options: ClientOptions): ConnectivityClient {
  return initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {
      authorization: `Bearer ${options.apiKey}`,
      ...(options.serviceVersion ? { 'service-version': options.serviceVersion } : {}),
    },
    throwOnUnknownStatus: false,
  });
}

/** The headers every call of a client carries; named so declaration files need not spell fetch's types. */
export type BaseHeaders = { authorization: string; 'service-version'?: string };

export type ConnectivityClient = InitClientReturn<Contract, { baseUrl: string; baseHeaders: BaseHeaders; throwOnUnknownStatus: false }>;
export type { Contract };
