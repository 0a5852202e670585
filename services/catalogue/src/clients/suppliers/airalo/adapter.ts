import type { Supplier } from '../port.ts';
import { airaloRefundStatus, terminateAiraloProfile } from './cancel.ts';
import { parseAiraloCallback } from './callbacks.ts';
import { loadAiraloCatalogue } from './catalogue.ts';
import { findAiraloOrder, listAiraloOrders } from './find.ts';
import { placeAiraloOrder } from './order.ts';
import { airaloProfileReport } from './reports.ts';
import { createAiraloSession, type AiraloOptions } from './session.ts';
import { airaloTopupOffers, findAiraloTopup, topUpAiralo } from './topups.ts';
import { SupplierError } from '../port.ts';

export { AIRALO_DEFAULT_URL, type AiraloOptions } from './session.ts';
export { airaloReport } from './reports.ts';

const unsupported = (what: string) => () => Promise.reject(new SupplierError('unsupported', `airalo cannot ${what} an eSIM (AIR-17)`));

/** The live supplier adapter for the Airalo Partner API v2: one file per operation, sharing one session. */
export function createAiraloSupplier(options: AiraloOptions): Supplier {
  const session = createAiraloSession(options, loadAiraloCatalogue);
  return {
    live: true,
    vendor: 'airalo',
    listBundles: () => session.catalogue.bundles(),
    listPrices: () => session.catalogue.prices(),
    refreshCatalogue: () => session.catalogue.invalidate(),
    purchase: (input) => placeAiraloOrder(session, input),
    findOrder: (reference) => findAiraloOrder(session, reference),
    listOrders: (window) => listAiraloOrders(session, window),
    profileReport: (iccid) => airaloProfileReport(session, iccid),
    parseCallback: (callback) => parseAiraloCallback(session, callback),
    suspendProfile: unsupported('suspend'),
    resumeProfile: unsupported('resume'),
    terminateProfile: (iccid) => terminateAiraloProfile(session, iccid),
    topupOffers: (iccid) => airaloTopupOffers(session, iccid),
    topUp: (input) => topUpAiralo(session, input),
    findTopup: (placed) => findAiraloTopup(session, placed),
    refundStatus: (iccid) => airaloRefundStatus(session, iccid),
  };
}
