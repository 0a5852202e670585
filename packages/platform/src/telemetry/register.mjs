// Loaded with `node --import`: registers OpenTelemetry's ESM loader hook BEFORE the app's
// modules are imported (so http, pg and pino can be instrumented), then starts the SDK.
//
// The hook runs in the application thread (`module.registerHooks`, synchronous) and wraps only
// the modules an instrumentation patches: the off-thread hook (`module.register`) wrapping every
// module costs a message round trip per module imported and re-parses each one
// (docs/decisions/0023-esm-loader-hook-in-thread.md).
import { register as registerAsync } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { register, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';

const { startTelemetry, instrumentedModules } = await import('./start.ts');
if (supportsSyncHooks()) {
  register({ include: instrumentedModules() });
  startTelemetry();
} else {
  // A Node whose synchronous hooks cannot load CommonJS yet: the off-thread hook, told which
  // modules to wrap before any of them is imported.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  registerAsync('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  startTelemetry();
  await waitForAllMessagesAcknowledged();
}
