import { Module } from '@nestjs/common';
import { LogsController } from './logs.controller';

/** Reading the services' log files (spec 4.12); LogReaderService comes from the global ApplicationModule. */
@Module({ controllers: [LogsController] })
export class LogsModule {}
