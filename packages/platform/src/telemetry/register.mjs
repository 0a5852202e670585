// Loaded with `node --import`: registers OpenTelemetry's ESM loader hook BEFORE the app's
// modules are imported (so express, http and pg can be instrumented), then starts the SDK.
import { register } from 'node:module';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

const { startTelemetry } = await import('./start.ts');
startTelemetry();
