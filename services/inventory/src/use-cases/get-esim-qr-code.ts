import { ApiError, type QrCodeMediaType } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { renderQrCode } from '../domain/render-qr-code.ts';
import { findReachableEsim } from './get-esim.ts';

/** GET /v1/esim/{id}/qr_code: the eSIM's activation code as a QR image, within the caller's reach. */
export async function getEsimQrCode(knex: Knex, caller: Caller, idOrIccid: string, type: QrCodeMediaType): Promise<Buffer> {
  const esim = await findReachableEsim(knex, caller, idOrIccid);
  if (esim.activation_code === null) {
    throw new ApiError('resource_not_found', {
      param: 'id',
      message: 'This eSIM has no activation code, so it has no QR code.',
    });
  }
  return renderQrCode(esim.activation_code, type);
}
