import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LOG_SERVICES, LogEntryView, LogFileView, LogLevelView, LogReaderService, LogService } from '@meridian/application';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { LogQueryDto } from './dto/log-query.dto';
import { LogEntryDto, LogFileDto, LogLevelDto } from './dto/log.dto';

@ApiTags('Logs')
@Controller('api/v1/logs')
@AdminEndpoint()
export class LogsController {
  constructor(private readonly logs: LogReaderService) {}

  @Get()
  @ApiOperation({
    summary: 'List the log entries of one day',
    description: 'Log entries of one UTC day, newest first, across the services and their rolled files.',
  })
  @ApiOkResponse({ type: [LogEntryDto], description: 'At most `limit` entries after skipping `offset` matches, newest first.' })
  @ApiErrors(400)
  list(@Query() query: LogQueryDto): Promise<LogEntryView[]> {
    return this.logs.read(query);
  }

  @Get('files')
  @ApiOperation({ summary: 'List log files', description: 'Log files, newest day first.' })
  @ApiOkResponse({ type: [LogFileDto], description: 'Sorted by date descending, then service, then newest roll first.' })
  files(): Promise<LogFileView[]> {
    return this.logs.listFiles();
  }

  @Get('levels')
  @ApiOperation({ summary: 'List log levels', description: 'Log levels in ascending severity, with their short forms.' })
  @ApiOkResponse({ type: [LogLevelDto], description: 'Verbose, Debug, Information, Warning, Error, Fatal.' })
  levels(): LogLevelView[] {
    return this.logs.levels();
  }

  @Get('services')
  @ApiOperation({ summary: 'List the services with logs', description: 'Services whose logs can be read.' })
  @ApiOkResponse({
    description: 'web, worker and scheduler.',
    schema: { type: 'array', items: { type: 'string', enum: [...LOG_SERVICES] } },
  })
  services(): LogService[] {
    return this.logs.services();
  }
}
