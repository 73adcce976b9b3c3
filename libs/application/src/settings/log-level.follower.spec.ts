import { tmpdir } from 'node:os';
import { createServiceLogger } from '@meridian/platform';
import { LogLevelFollower } from './log-level.follower';
import type { SettingsService } from './settings.service';

describe('LogLevelFollower', () => {
  it('applies the setting when it has a value and falls back to the environment level when it has none', async () => {
    let value: string | null = null;
    const settings = { get: async () => ({ value }) } as unknown as SettingsService;
    const logger = createServiceLogger({ service: 'web', logDir: tmpdir(), level: 'Information', console: false });
    const follower = new LogLevelFollower(settings, logger, { logLevel: 'Information' } as never);
    expect(await follower.sync()).toBe('Information');
    expect(logger.level).toBe('information');
    value = 'Debug';
    expect(await follower.sync()).toBe('Debug');
    expect(logger.level).toBe('debug');
    value = null;
    expect(await follower.sync()).toBe('Information');
    expect(logger.level).toBe('information');
    logger.close();
  });
});
