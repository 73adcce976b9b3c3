import { Module } from '@nestjs/common';
import { OperationsModule } from '@meridian/application';
import { LogsController } from './logs.controller';

/** Reading the services' log files (spec 4.12); LogReaderService comes from OperationsModule. */
@Module({ imports: [OperationsModule], controllers: [LogsController] })
export class LogsModule {}
