import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, MatchingRulesService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { CreateMatchingRuleDto, MatchingRuleDto, MatchingRuleOrderDto, UpdateMatchingRuleDto } from './dto/matching-rule.dto';

/** Ordered matching rules of Import sync rules; writes on an Export rule are a 400 BAD_REQUEST. */
@ApiTags('Sync rules')
@Controller('api/v1/synchronisation/sync-rules/:syncRuleId/matching-rules')
@AdminEndpoint()
export class MatchingRulesController {
  constructor(private readonly matching: MatchingRulesService) {}

  @Get()
  @ApiOperation({
    summary: 'List the matching rules of a sync rule in evaluation order',
    description: 'Export rules have none (empty list).',
  })
  @ApiOkResponse({ type: [MatchingRuleDto] })
  @ApiErrors(400, 404)
  list(@Param('syncRuleId', IntIdPipe) syncRuleId: number) {
    return this.matching.list(syncRuleId);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a matching rule',
    description: 'Turns on the index of the metaverse attribute when it is off and backfills its lookup rows.',
  })
  @ApiCreatedResponse({ type: MatchingRuleDto })
  @ApiErrors(400, 404)
  create(
    @Param('syncRuleId', IntIdPipe) syncRuleId: number,
    @Body() body: CreateMatchingRuleDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.matching.create(syncRuleId, body, initiator);
  }

  // Declared before ':matchingRuleId' so "order" is not taken for an id.
  @Put('order')
  @ApiOperation({ summary: 'Set the evaluation order of every matching rule of a sync rule' })
  @ApiOkResponse({ type: [MatchingRuleDto] })
  @ApiErrors(400, 404)
  reorder(
    @Param('syncRuleId', IntIdPipe) syncRuleId: number,
    @Body() body: MatchingRuleOrderDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.matching.reorder(syncRuleId, body.matchingRuleIds, initiator);
  }

  @Put(':matchingRuleId')
  @ApiOperation({ summary: 'Update a matching rule (partial)' })
  @ApiOkResponse({ type: MatchingRuleDto })
  @ApiErrors(400, 404)
  update(
    @Param('syncRuleId', IntIdPipe) syncRuleId: number,
    @Param('matchingRuleId', IntIdPipe) matchingRuleId: number,
    @Body() body: UpdateMatchingRuleDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.matching.update(syncRuleId, matchingRuleId, body, initiator);
  }

  @Delete(':matchingRuleId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a matching rule' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  async remove(
    @Param('syncRuleId', IntIdPipe) syncRuleId: number,
    @Param('matchingRuleId', IntIdPipe) matchingRuleId: number,
    @CurrentInitiator() initiator: Initiator,
  ): Promise<void> {
    await this.matching.remove(syncRuleId, matchingRuleId, initiator);
  }
}
