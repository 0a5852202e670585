import { expect } from 'vitest';

/** What the portable program (consumer/portable.ts.txt) reports on any runtime when the SDK works there. */
export function expectPortableReport(report: Record<string, unknown>): void {
  expect(report.order).toMatch(/^ord_[0-9A-Za-z]{20,}$/);
  const esims = report.esims as string[];
  expect(esims).toHaveLength(2);
  expect(report.paged).toEqual(esims);
  expect(report.invalid).toEqual({ class: 'InvalidRequestError', code: 'invalid_parameter', param: 'bundle' });
  // Each eSIM's esim.released, delivered by the API and verified with the SDK.
  expect(report.released).toEqual(esims);
  expect(report.rejected).toEqual([]);
  expect(report.tampered).toBe('WebhookVerificationError');
  expect(report.unsigned).toBe('WebhookVerificationError');
  // A type newer than the SDK, signed with Web Crypto: verified, unknown, ignored by handleEvent and by a switch.
  expect(report.unknown).toEqual({ type: 'payout.paid', known: false, handled: null, ignored: 'ignored payout.paid' });
  expect(report.malformed).toBe('WebhookPayloadError');
}
