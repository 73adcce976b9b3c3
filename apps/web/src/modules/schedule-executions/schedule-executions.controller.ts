import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, ScheduleExecutionsService } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors, pagedOf } from '../../http/openapi';
import { ExecutionDetailDto, ExecutionListQueryDto, ExecutionSummaryDto } from './dto/schedule-execution.dto';

const ExecutionPage = pagedOf(ExecutionSummaryDto, 'ScheduleExecutionPage');

@ApiTags('Schedule executions')
@Controller('api/v1/schedule-executions')
@AdminEndpoint()
export class ScheduleExecutionsController {
  constructor(private readonly executions: ScheduleExecutionsService) {}

  @Get()
  @ApiOperation({
    summary: 'List schedule executions',
    description: 'Paginated execution summaries (spec 2.1; pageSize default 20, max 100), newest first by default.',
  })
  @ApiOkResponse({ type: ExecutionPage })
  @ApiErrors(400)
  list(@Query() query: ExecutionListQueryDto) {
    return this.executions.list(query);
  }

  // Declared before ':id' so "active" is not taken for an id.
  @Get('active')
  @ApiOperation({
    summary: 'Executions that are queued, running or paused',
    description: 'An array (not paginated) of Queued, InProgress and Paused executions, oldest first.',
  })
  @ApiOkResponse({ type: [ExecutionSummaryDto] })
  active() {
    return this.executions.active();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an execution with its steps' })
  @ApiOkResponse({ type: ExecutionDetailDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.executions.get(id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel an execution',
    description:
      'A Queued, InProgress or Paused execution becomes Cancelled at once (final; nothing overwrites it) and is returned. Steps not yet running are cancelled; ' +
      'run-profile activities are asked to cancel (cancelled outright if no worker has started them); the scheduler stops processes and SQL scripts it runs for the execution ' +
      '(SIGTERM to the process group, SIGKILL after a grace period). A finished execution gives 400 BAD_REQUEST. Records a ScheduleExecution Cancel activity.',
  })
  @ApiOkResponse({ type: ExecutionDetailDto })
  @ApiErrors(400, 404)
  cancel(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator) {
    return this.executions.cancel(id, initiator);
  }
}
