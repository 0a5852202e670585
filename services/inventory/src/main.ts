import { runService } from '@connectivity/platform';
import { inventoryService } from './service.ts';

await runService(inventoryService);
