import { ApiKeysService, MetaverseObjectsWriter, RunProfileExecutor, ScheduleExecutionRunner } from '@meridian/application';
import { waitFor } from '@meridian/testing';
import { SchedulerInstance, SchedulerTestBed } from './harness';

describe('the scheduler process holds the schedule runner, nothing of the API or the engine', () => {
  let bed: SchedulerTestBed;
  let s: SchedulerInstance;

  beforeAll(async () => {
    bed = await SchedulerTestBed.start('modules');
    s = await bed.instance();
    await waitFor(async () => s.leader.isLeader);
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('holds the schedule execution runner', () => {
    expect(s.app.get(ScheduleExecutionRunner)).toBeInstanceOf(ScheduleExecutionRunner);
  });

  it.each([RunProfileExecutor, ApiKeysService, MetaverseObjectsWriter])('does not hold %p', (type) => {
    expect(() => s.app.get(type)).toThrow(/could not find/i);
  });
});
