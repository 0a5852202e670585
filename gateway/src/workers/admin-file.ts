import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where a running gateway tells the operator CLI how to reach its admin API. */
export const ADMIN_FILE_NAME = 'admin.json';

export interface AdminEndpoint {
  url: string;
  token: string;
}

/** Written readable by the owner only: the token is as good as operator access. */
export async function writeAdminFile(dataDir: string, endpoint: AdminEndpoint): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, ADMIN_FILE_NAME);
  await writeFile(file, `${JSON.stringify(endpoint, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export async function removeAdminFile(file: string): Promise<void> {
  await rm(file, { force: true });
}
