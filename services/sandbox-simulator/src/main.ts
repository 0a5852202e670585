import { runService } from '@connectivity/platform';
import { sandboxSimulatorService } from './service.ts';

await runService(sandboxSimulatorService);
