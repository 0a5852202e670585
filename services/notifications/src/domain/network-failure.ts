import type { AttemptResult } from './delivery-outcome.ts';

type Failure = Extract<AttemptResult, { kind: 'error' }>['failure'];

/** OpenSSL's and Node's codes for a handshake or a certificate that failed. */
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|EPROTO$)/;

/**
 * The class a tenant is shown for a request that got no answer, from the socket error's code:
 * the class says what to fix, the code itself stays in our logs.
 */
export function networkFailure(code: string | undefined): Failure {
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code !== undefined && TLS_CODES.test(code)) return 'tls_error';
  return 'connection_error';
}
