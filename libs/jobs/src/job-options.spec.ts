import { Queue } from 'bullmq';
import { randomBytes, randomUUID } from 'node:crypto';
import { JOB_DEFINITIONS } from './job-options';
import { JobName } from './job-names';
import { redisConnection } from './redis-connection';

describe('job definitions', () => {
  it('define every job with a deterministic id BullMQ accepts', () => {
    for (const name of Object.values(JobName)) {
      const def = JOB_DEFINITIONS[name];
      expect(def).toBeDefined();
      const id = randomUUID();
      const payload = { probeId: id, activityId: id } as never;
      expect(def.jobId(payload)).toBe(def.jobId(payload));
      expect(def.jobId(payload)).toContain(id);
      expect(def.jobId(payload)).not.toContain(':');
      expect(def.options.removeOnComplete).toBeTruthy();
    }
  });

  it('enqueue the same work twice as one job (deterministic ids on a real Redis)', async () => {
    const prefix = `meridian-test-${randomBytes(6).toString('hex')}`;
    const queue = new Queue('jobs', { prefix, connection: redisConnection(process.env.MERIDIAN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') });
    try {
      const def = JOB_DEFINITIONS[JobName.Noop];
      const payload = { probeId: randomUUID() };
      const a = await queue.add(JobName.Noop, payload, { ...def.options, jobId: def.jobId(payload) });
      const b = await queue.add(JobName.Noop, payload, { ...def.options, jobId: def.jobId(payload) });
      expect(a.id).toBe(b.id);
      expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
