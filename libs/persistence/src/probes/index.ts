export * from './queue-probe.store';
