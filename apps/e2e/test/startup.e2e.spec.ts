import { startService } from './processes';

describe('process start-up with bad configuration', () => {
  it.each(['web', 'worker', 'scheduler'] as const)('%s exits with one line naming a missing variable', async (name) => {
    const p = startService(name, { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', MERIDIAN_LOG_CONSOLE: 'false' });
    const code = await new Promise<number | null>((resolve) => p.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(p.output().trim().split('\n')).toEqual([expect.stringMatching(/^Configuration error: MERIDIAN_ENCRYPTION_KEY is required/)]);
  });

  it('names a malformed variable', async () => {
    const p = startService('web', { MERIDIAN_ENCRYPTION_KEY: 'AAAA' });
    const code = await new Promise<number | null>((resolve) => p.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(p.output().trim()).toMatch(/^Configuration error: MERIDIAN_ENCRYPTION_KEY must be 32 bytes/);
  });
});
