import { runService } from '@connectivity/platform';
import { gatewayService } from './service.ts';

await runService(gatewayService);
