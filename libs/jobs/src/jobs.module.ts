import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { JobQueue } from './job-queue.service';
import { MERIDIAN_QUEUE, RUNS_QUEUE } from './job-names';
import { redisConnection } from './redis-connection';

export interface JobsModuleOptions {
  redisUrl: string;
  prefix: string;
  /** Workers need `maxRetriesPerRequest: null`; producers fail fast instead. */
  worker?: boolean;
}

/** BullMQ on Redis: the queue and the enqueue API. */
@Module({})
export class JobsModule {
  static forRoot(options: JobsModuleOptions): DynamicModule {
    return {
      module: JobsModule,
      global: true,
      imports: [
        BullModule.forRoot({
          prefix: options.prefix,
          connection: redisConnection(
            options.redisUrl,
            options.worker ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 2, connectTimeout: 5000, enableOfflineQueue: false },
          ),
        }),
        BullModule.registerQueue({ name: MERIDIAN_QUEUE }, { name: RUNS_QUEUE }),
      ],
      providers: [JobQueue],
      exports: [JobQueue, BullModule],
    };
  }
}
