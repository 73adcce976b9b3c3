export * from './schedules.providers';
