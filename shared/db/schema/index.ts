export * from './accounts';
export * from './geo';
export * from './content';
export * from './trends';
export * from './tracking';
export * from './rollups';
export * from './entities';
export * from './feed';
