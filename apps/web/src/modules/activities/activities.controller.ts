import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ActivitiesService, ActivityRunStatsQuery } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors, pagedOf } from '../../http/openapi';
import { PageQueryDto } from '../../http/paging.dto';
import { ActivityDetailDto, ActivityListQueryDto, ActivityRunStatsDto, ActivitySummaryDto, ExecutionItemDto } from './dto/activity.dto';

@ApiTags('Activities')
@Controller('api/v1/activities')
@AdminEndpoint()
export class ActivitiesController {
  constructor(
    private readonly activities: ActivitiesService,
    private readonly runStats: ActivityRunStatsQuery,
  ) {}

  @ApiOperation({ summary: 'List activities' })
  @Get()
  @ApiOkResponse({ type: pagedOf(ActivitySummaryDto, 'PagedActivities') })
  @ApiErrors(400)
  list(@Query() query: ActivityListQueryDto) {
    return this.activities.list(query);
  }

  @ApiOperation({ summary: 'Get an activity' })
  @Get(':id')
  @ApiOkResponse({ type: ActivityDetailDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.activities.get(id);
  }

  @Get(':id/stats')
  @ApiOperation({
    summary: 'Execution statistics of a run-profile activity',
    description:
      'Progress and counters, the pages, phases and throughput the runner reported, and the execution items aggregated by outcome and by error type. ' +
      'Only for activities with targetType ConnectedSystemRunProfile; otherwise 400 BAD_REQUEST.',
  })
  @ApiOkResponse({ type: ActivityRunStatsDto })
  @ApiErrors(400, 404)
  stats(@Param('id', UuidPipe) id: string) {
    return this.runStats.stats(id);
  }

  @ApiOperation({ summary: 'List the execution items of an activity' })
  @Get(':id/items')
  @ApiOkResponse({ type: pagedOf(ExecutionItemDto, 'PagedExecutionItems') })
  @ApiErrors(400, 404)
  items(@Param('id', UuidPipe) id: string, @Query() query: PageQueryDto) {
    return this.activities.items(id, query);
  }

  @ApiOperation({ summary: 'List the child activities of an activity' })
  @Get(':id/children')
  @ApiOkResponse({ type: [ActivitySummaryDto] })
  @ApiErrors(400, 404)
  children(@Param('id', UuidPipe) id: string) {
    return this.activities.children(id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a run-profile activity',
    description:
      'Only an InProgress activity with targetType ConnectedSystemRunProfile; anything else (a finished activity, another kind) gives 400 BAD_REQUEST. ' +
      'One that no worker has started yet is Cancelled at once ("Cancelled before it started."); a running one is asked to stop: it stays InProgress until its ' +
      'worker reaches the next page boundary and ends it Cancelled. Returns the activity as GET /activities/{id} does.',
  })
  @ApiOkResponse({ type: ActivityDetailDto })
  @ApiErrors(400, 404)
  cancel(@Param('id', UuidPipe) id: string) {
    return this.activities.cancel(id);
  }
}
