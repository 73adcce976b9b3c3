export * from './activity.store';
