import {
  ApiKeysService,
  HistoryService,
  HistoryCleanupService,
  HousekeepingService,
  MetaverseObjectsWriter,
  RunProfileExecutor,
  ScheduleExecutionRunner,
} from '@meridian/application';
import { startWebApp, WebHarness } from './harness';

describe('the web process holds what the API serves, and no engine or schedule runner', () => {
  let h: WebHarness;

  beforeAll(async () => {
    h = await startWebApp({}, { highRateLimits: false });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('has the API services', () => {
    expect(h.app.get(ApiKeysService)).toBeInstanceOf(ApiKeysService);
    expect(h.app.get(MetaverseObjectsWriter)).toBeInstanceOf(MetaverseObjectsWriter);
    expect(h.app.get(HistoryService)).toBeInstanceOf(HistoryService);
    expect(h.app.get(HistoryCleanupService)).toBeInstanceOf(HistoryCleanupService);
  });

  it.each([RunProfileExecutor, HousekeepingService, ScheduleExecutionRunner])('does not hold %p', (type) => {
    expect(() => h.app.get(type)).toThrow(/could not find/i);
  });
});
