import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDataSourceToken } from '@nestjs/typeorm';
import { closeLogger } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { startWebApp } from './harness';

describe('shutdown', () => {
  it('a pool connection that fails once the app has closed (the server ending it) is no outage: nothing is logged, nothing thrown', async () => {
    const h = await startWebApp();
    const pool = (h.app.get<DataSource>(getDataSourceToken()).driver as unknown as { master: EventEmitter }).master;
    await h.app.close();
    await closeLogger(h.logger);
    try {
      // What a pool's client that is still closing emits when the database drops it (pg-pool forwards it).
      expect(() => pool.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
      const lines = readdirSync(h.env.logDir)
        .filter((f) => f.endsWith('.log'))
        .flatMap((f) => readFileSync(join(h.env.logDir, f), 'utf8').split('\n'));
      expect(lines.some((l) => l.includes('Database pool closed.'))).toBe(true);
      expect(lines.filter((l) => /unavailable/.test(l))).toEqual([]);
    } finally {
      await h.env.cleanup();
      await h.db.drop();
    }
  });
});
