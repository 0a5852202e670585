import { catalogueService } from '@connectivity/catalogue';
import { gatewayService } from '@connectivity/gateway';
import { inventoryService } from '@connectivity/inventory';
import { notificationsService } from '@connectivity/notifications';
import type { ServiceDefinition } from '@connectivity/platform';
import { sandboxSimulatorService } from '@connectivity/sandbox-simulator';

/**
 * Every deployable, in start order: a service comes after the peers it calls, so its peer URLs
 * are known when it starts (inventory calls catalogue; the simulator calls inventory; the
 * gateway calls everyone).
 */
export const backendServices = [catalogueService, inventoryService, notificationsService, sandboxSimulatorService] as const;

export const allServices: readonly ServiceDefinition[] = [...backendServices, gatewayService] as readonly ServiceDefinition[];

/** The gateway's config variable naming where each service lives. */
export const URL_VARIABLE: Record<string, string> = {
  catalogue: 'CATALOGUE_URL',
  inventory: 'INVENTORY_URL',
  notifications: 'NOTIFICATIONS_URL',
  'sandbox-simulator': 'SANDBOX_SIMULATOR_URL',
};

/**
 * Port of each service when it runs as its own process, as an offset from the gateway's PORT
 * (8080 → catalogue 8081, inventory 8082, sandbox-simulator 8083, notifications 8084).
 */
export const PORT_OFFSET: Record<string, number> = {
  gateway: 0,
  catalogue: 1,
  inventory: 2,
  'sandbox-simulator': 3,
  notifications: 4,
};
