import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, SyncRuleMappingsService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { CreateMappingDto, MappingDto, UpdateMappingDto } from './dto/mapping.dto';

/** Attribute mappings exactly as spec 4.8 (plus PUT). */
@ApiTags('Sync rules')
@Controller('api/v1/synchronisation/sync-rules/:syncRuleId/mappings')
@AdminEndpoint()
export class SyncRuleMappingsController {
  constructor(private readonly mappings: SyncRuleMappingsService) {}

  @Get()
  @ApiOperation({ summary: 'List the attribute mappings of a sync rule' })
  @ApiOkResponse({ type: [MappingDto] })
  @ApiErrors(400, 404)
  list(@Param('syncRuleId', IntIdPipe) syncRuleId: number) {
    return this.mappings.list(syncRuleId);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an attribute mapping',
    description:
      'A missing target, an invalid expression (with its line and column in details) or an unknown attribute gives 400 VALIDATION_ERROR.',
  })
  @ApiCreatedResponse({ type: MappingDto })
  @ApiErrors(400, 404)
  create(@Param('syncRuleId', IntIdPipe) syncRuleId: number, @Body() body: CreateMappingDto, @CurrentInitiator() initiator: Initiator) {
    return this.mappings.create(syncRuleId, body, initiator);
  }

  @Get(':mappingId')
  @ApiOperation({ summary: 'Get an attribute mapping' })
  @ApiOkResponse({ type: MappingDto })
  @ApiErrors(400, 404)
  get(@Param('syncRuleId', IntIdPipe) syncRuleId: number, @Param('mappingId', IntIdPipe) mappingId: number) {
    return this.mappings.get(syncRuleId, mappingId);
  }

  @Put(':mappingId')
  @ApiOperation({ summary: 'Update an attribute mapping (partial)', description: 'Sources, when given, replace every source.' })
  @ApiOkResponse({ type: MappingDto })
  @ApiErrors(400, 404)
  update(
    @Param('syncRuleId', IntIdPipe) syncRuleId: number,
    @Param('mappingId', IntIdPipe) mappingId: number,
    @Body() body: UpdateMappingDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.mappings.update(syncRuleId, mappingId, body, initiator);
  }

  @Delete(':mappingId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an attribute mapping' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  async remove(
    @Param('syncRuleId', IntIdPipe) syncRuleId: number,
    @Param('mappingId', IntIdPipe) mappingId: number,
    @CurrentInitiator() initiator: Initiator,
  ): Promise<void> {
    await this.mappings.remove(syncRuleId, mappingId, initiator);
  }
}
