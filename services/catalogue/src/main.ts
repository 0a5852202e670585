import { runService } from '@connectivity/platform';
import { catalogueService } from './service.ts';

await runService(catalogueService);
