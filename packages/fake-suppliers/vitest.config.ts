// Every package shares one test configuration.
export { default } from '../../vitest.shared.ts';
