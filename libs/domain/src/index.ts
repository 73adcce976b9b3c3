export * from './errors/domain-error';
export * from './activities/activity.enums';
export * from './common/timespan';
export * from './settings/service-settings';
export * from './metaverse/metaverse-schema';
export * from './auth/roles';
export * from './expressions';
