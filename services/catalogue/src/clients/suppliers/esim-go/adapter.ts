import { SupplierError, type Supplier } from '../port.ts';
import { parseEsimGoCallback } from './callbacks.ts';
import { terminateEsimGoProfile } from './cancel.ts';
import { loadEsimGoCatalogue } from './catalogue.ts';
import { findEsimGoOrder, listEsimGoOrders } from './find.ts';
import { placeEsimGoOrder, quoteEsimGo } from './order.ts';
import { esimGoProfileReport } from './reports.ts';
import { findEsimGoTopup, topUpEsimGo } from './topups.ts';
import { createEsimGoSession, type EsimGoOptions } from './session.ts';

export { ESIMGO_DEFAULT_URL, type EsimGoOptions } from './session.ts';
export { esimGoCallbackReport, esimGoReport } from './reports.ts';

const unsupported = (what: string) => () => Promise.reject(new SupplierError('unsupported', `esim-go v2.4 cannot ${what} an eSIM (EG-19)`));

/** The live supplier adapter for the eSIM Go API v2.4: one file per operation, sharing one session. */
export function createEsimGoSupplier(options: EsimGoOptions): Supplier {
  const session = createEsimGoSession(options, loadEsimGoCatalogue);
  return {
    live: true,
    vendor: 'esim-go',
    listBundles: () => session.catalogue.bundles(),
    listPrices: () => session.catalogue.prices(),
    refreshCatalogue: () => session.catalogue.invalidate(),
    quote: (bundle, quantity) => quoteEsimGo(session, bundle, quantity),
    purchase: (input) => placeEsimGoOrder(session, input),
    findOrder: (reference, placed) => findEsimGoOrder(session, reference, placed),
    listOrders: (window) => listEsimGoOrders(session, window),
    profileReport: (iccid) => esimGoProfileReport(session, iccid),
    // A thrown refusal becomes the promise's: `forged`, `malformed`.
    parseCallback: (callback) => Promise.resolve().then(() => parseEsimGoCallback(session, callback)),
    suspendProfile: unsupported('suspend'),
    resumeProfile: unsupported('resume'),
    terminateProfile: (iccid) => terminateEsimGoProfile(session, iccid),
    topUp: (input) => topUpEsimGo(session, input),
    findTopup: (placed) => findEsimGoTopup(session, placed),
    // eSIM Go refunds at once or not at all: nothing is ever left to review.
    refundStatus: () => Promise.resolve('succeeded' as const),
  };
}
