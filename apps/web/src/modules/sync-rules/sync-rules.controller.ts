import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, SyncRulesService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors, pagedOf } from '../../http/openapi';
import { ScopingCriteriaDto, SetScopingCriteriaDto } from './dto/scoping-criteria.dto';
import { CreateSyncRuleDto, SyncRuleDetailDto, SyncRuleDto, SyncRuleListQueryDto, UpdateSyncRuleDto } from './dto/sync-rule.dto';

const SyncRulePage = pagedOf(SyncRuleDto, 'SyncRulePage');

@ApiTags('Sync rules')
@Controller('api/v1/synchronisation/sync-rules')
@AdminEndpoint()
export class SyncRulesController {
  constructor(private readonly rules: SyncRulesService) {}

  @Get()
  @ApiOperation({
    summary: 'List sync rules',
    description: 'Paginated (spec 2.1), ordered by name; filter by connected system, direction or metaverse object type.',
  })
  @ApiOkResponse({ type: SyncRulePage })
  @ApiErrors(400)
  list(@Query() query: SyncRuleListQueryDto) {
    return this.rules.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a sync rule',
    description: 'Flags the connected system for a full synchronisation and records a SyncRule Create activity.',
  })
  @ApiCreatedResponse({ type: SyncRuleDetailDto })
  @ApiErrors(400, 409)
  create(@Body() body: CreateSyncRuleDto, @CurrentInitiator() initiator: Initiator) {
    return this.rules.create(body, initiator);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a sync rule with its scoping criteria, mappings and matching rules' })
  @ApiOkResponse({ type: SyncRuleDetailDto })
  @ApiErrors(400, 404)
  get(@Param('id', IntIdPipe) id: number) {
    return this.rules.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a sync rule (partial)',
    description: 'direction and connectedSystemId are immutable: a different value is a 400.',
  })
  @ApiOkResponse({ type: SyncRuleDetailDto })
  @ApiErrors(400, 404, 409)
  update(@Param('id', IntIdPipe) id: number, @Body() body: UpdateSyncRuleDto, @CurrentInitiator() initiator: Initiator) {
    return this.rules.update(id, body, initiator);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a sync rule with its mappings and matching rules' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  async remove(@Param('id', IntIdPipe) id: number, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.rules.remove(id, initiator);
  }

  @Get(':id/scoping-criteria')
  @ApiOperation({ summary: 'Get the scoping criteria of a sync rule' })
  @ApiOkResponse({ type: ScopingCriteriaDto })
  @ApiErrors(400, 404)
  getScoping(@Param('id', IntIdPipe) id: number) {
    return this.rules.getScopingCriteria(id);
  }

  @Put(':id/scoping-criteria')
  @ApiOperation({ summary: 'Replace the scoping criteria of a sync rule', description: 'An empty array puts every object in scope.' })
  @ApiOkResponse({ type: ScopingCriteriaDto })
  @ApiErrors(400, 404)
  setScoping(@Param('id', IntIdPipe) id: number, @Body() body: SetScopingCriteriaDto, @CurrentInitiator() initiator: Initiator) {
    return this.rules.setScopingCriteria(id, body.scopingCriteria, initiator);
  }
}
