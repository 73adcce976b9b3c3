import {
  ApiKeysService,
  ConnectedSystemsService,
  ConnectorContextFactory,
  MetaverseObjectsWriter,
  RunProfileExecutor,
  RunProfilesService,
  ScheduleExecutionRunner,
} from '@meridian/application';
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

  it.each([ScheduleExecutionRunner, RunProfilesService])('holds %p', (type) => {
    expect(s.app.get(type)).toBeInstanceOf(type);
  });

  it.each([RunProfileExecutor, ApiKeysService, MetaverseObjectsWriter, ConnectedSystemsService, ConnectorContextFactory])(
    'does not hold %p',
    (type) => {
      expect(() => s.app.get(type)).toThrow(/could not find/i);
    },
  );
});
