// Pure rules of schedules: patterns, cron generation and next run times, steps, connection-string
// secrets (docs/schedules.md).
export * from './schedule-pattern';
export * from './cron-syntax';
export * from './cron-generation';
export * from './next-run';
export * from './schedule-steps';
export * from './connection-string';
export * from './execution-status';
