import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PendingDeletionsQuery } from '@meridian/application';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors, pagedOf } from '../../http/openapi';
import {
  PendingDeletionCountQueryDto,
  PendingDeletionDto,
  PendingDeletionListQueryDto,
  PendingDeletionSummaryDto,
} from './dto/pending-deletion.dto';

/** Spec 4.6: metaverse objects whose last connector disconnected, waiting for automatic deletion (docs/pending-deletions.md). */
@ApiTags('Metaverse')
@Controller('api/v1/metaverse/pending-deletions')
@AdminEndpoint()
export class PendingDeletionsController {
  constructor(private readonly pendingDeletions: PendingDeletionsQuery) {}

  @Get()
  @ApiOperation({
    summary: 'List pending deletions',
    description: 'Paginated (pageSize default 25, max 100), ordered by metaverse object id.',
  })
  @ApiOkResponse({ type: pagedOf(PendingDeletionDto, 'PendingDeletionPage') })
  @ApiErrors(400)
  list(@Query() query: PendingDeletionListQueryDto) {
    return this.pendingDeletions.list(query);
  }

  @Get('count')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'Count pending deletions', description: 'A bare integer.' })
  @ApiOkResponse({ schema: { type: 'integer', example: 12 } })
  @ApiErrors(400)
  count(@Query() query: PendingDeletionCountQueryDto) {
    return this.pendingDeletions.count(query);
  }

  @Get('summary')
  @ApiOperation({
    summary: 'Pending deletions by status',
    description:
      'Deprovisioning: still joined to connector space objects; AwaitingGracePeriod: ' +
      'deletionEligibleDate is in the future; ReadyForDeletion: the rest.',
  })
  @ApiOkResponse({ type: PendingDeletionSummaryDto })
  summary() {
    return this.pendingDeletions.summary();
  }
}
