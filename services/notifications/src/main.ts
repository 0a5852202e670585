import { runService } from '@connectivity/platform';
import { notificationsService } from './service.ts';

await runService(notificationsService);
