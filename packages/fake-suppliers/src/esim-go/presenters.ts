import { countryEntry, type EsimGoBundleSpec } from './catalogue.ts';
import { bundleOf, type EsimGoContext } from './context.ts';
import { isoTime } from './lifecycle.ts';
import type { EsimGoAssignment, EsimGoEsim, EsimGoOrder } from './state.ts';

export function catalogueBundle(bundle: EsimGoBundleSpec) {
  return {
    name: bundle.name,
    description: bundle.description,
    groups: bundle.groups,
    countries: bundle.countries.map(countryEntry),
    dataAmount: bundle.dataAmount,
    duration: bundle.duration,
    speed: ['4G', '5G'],
    autostart: true,
    unlimited: bundle.unlimited,
    roamingEnabled: [],
    price: bundle.price,
    billingType: 'FixedCost',
  };
}

export function assignmentBody(assignment: EsimGoAssignment) {
  return {
    id: assignment.id,
    callTypeGroup: 'data',
    initialQuantity: assignment.initial_bytes,
    remainingQuantity: assignment.remaining_bytes,
    assignmentDateTime: isoTime(assignment.assigned_at),
    assignmentReference: assignment.reference,
    bundleState: assignment.state,
    unlimited: assignment.unlimited,
  };
}

/** GET /esims/{iccid}/bundles: assignments grouped by bundle name, newest first. */
export function bundlesBody(ctx: EsimGoContext, assignments: EsimGoAssignment[]) {
  const names = [...new Set(assignments.map((a) => a.bundle))];
  return {
    bundles: names.map((name) => ({
      name,
      description: bundleOf(ctx, name)?.description ?? name,
      assignments: assignments
        .filter((a) => a.bundle === name)
        .sort((a, b) => b.assigned_at - a.assigned_at)
        .map(assignmentBody),
    })),
  };
}

export function esimDetails(esim: EsimGoEsim, appleInstallUrl: boolean) {
  return {
    iccid: esim.iccid,
    pin: esim.pin,
    puk: esim.puk,
    matchingId: esim.matching_id,
    smdpAddress: esim.smdp_address,
    profileStatus: esim.profile_status,
    // EG-13: epoch milliseconds here, an ISO string in /esims/assignments.
    ...(esim.first_installed_at !== undefined ? { firstInstalledDateTime: esim.first_installed_at } : {}),
    customerRef: esim.customer_ref,
    ...(appleInstallUrl ? { appleInstallUrl: appleInstallUrlOf(esim) } : {}),
  };
}

export const appleInstallUrlOf = (esim: EsimGoEsim) =>
  `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA:1$${esim.smdp_address}$${esim.matching_id}`;

export function installDetails(esim: EsimGoEsim, appleInstallUrl: boolean) {
  return {
    iccid: esim.iccid,
    matchingId: esim.matching_id,
    smdpAddress: esim.smdp_address,
    profileStatus: esim.profile_status,
    pin: esim.pin,
    puk: esim.puk,
    ...(esim.first_installed_at !== undefined ? { firstInstalledDateTime: isoTime(esim.first_installed_at) } : {}),
    ...(appleInstallUrl ? { appleInstallUrl: appleInstallUrlOf(esim) } : {}),
  };
}

export function listedEsim(esim: EsimGoEsim) {
  const last = esim.history.at(-1);
  return {
    iccid: esim.iccid,
    customerRef: esim.customer_ref,
    lastAction: last?.name ?? 'Bundle Applied',
    actionDate: last?.date ?? isoTime(esim.assigned_at),
    physical: false,
    assignedDate: isoTime(esim.assigned_at),
  };
}

/** An order as POST /orders (transaction) and GET /orders/{ref} answer it. */
export function orderBody(ctx: EsimGoContext, order: EsimGoOrder, withEsims: boolean) {
  const esimCount = order.lines.reduce((n, l) => n + l.iccids.length, 0);
  return {
    order: order.lines.map((line) => ({
      ...(withEsims
        ? {
            esims: line.iccids.map((iccid) => {
              // An order keeps the eSIMs it made, those the returns process took off the account too.
              const esim = (ctx.state.esims[iccid] ?? ctx.state.returned?.[iccid])!;
              return { iccid, matchingId: esim.matching_id, smdpAddress: esim.smdp_address };
            }),
          }
        : {}),
      type: 'bundle',
      item: line.item,
      ...(withEsims ? { iccids: line.iccids } : {}),
      quantity: line.quantity,
      subTotal: round(line.price_per_unit * line.quantity),
      pricePerUnit: line.price_per_unit,
      AllowReassign: line.allow_reassign,
    })),
    total: order.total,
    currency: ctx.state.organisation.currency,
    status: 'completed',
    statusMessage: order.assigned ? `Order completed: ${esimCount} eSIMs assigned` : 'Order completed: bundles added to inventory',
    orderReference: order.reference,
    createdDate: isoTime(order.created_at),
    assigned: order.assigned,
    sourceIP: order.source_ip,
  };
}

export const round = (n: number) => Math.round(n * 100) / 100;
