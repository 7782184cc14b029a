export * from './schema/index';
