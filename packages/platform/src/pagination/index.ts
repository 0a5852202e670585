export * from './config.ts';
export * from './cursor-codec.ts';
export * from './page.ts';
