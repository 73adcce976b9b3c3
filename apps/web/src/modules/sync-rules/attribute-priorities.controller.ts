import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AttributePrioritiesService, Initiator } from '@meridian/application';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { AttributePriorityDto, AttributePriorityQueryDto, SetAttributePriorityDto } from './dto/attribute-priority.dto';

/** Attribute priority (DOMAIN.md §2.2.6): which import mapping wins a metaverse attribute. */
@ApiTags('Sync rules')
@Controller('api/v1/synchronisation/attribute-priorities')
@AdminEndpoint()
export class AttributePrioritiesController {
  constructor(private readonly priorities: AttributePrioritiesService) {}

  @Get()
  @ApiOperation({
    summary: 'List the contributors of metaverse attributes in priority order',
    description:
      'Import mappings grouped by metaverse object type × attribute, each group ordered by priority (1 = highest). Filter with metaverseObjectTypeId and metaverseAttributeId.',
  })
  @ApiOkResponse({ type: [AttributePriorityDto] })
  @ApiErrors(400)
  list(@Query() query: AttributePriorityQueryDto) {
    return this.priorities.list(query);
  }

  @Put()
  @ApiOperation({
    summary: 'Set the priority order of the contributors of one metaverse attribute',
    description: 'mappingIds must list exactly the contributing import mappings; they are renumbered 1..n.',
  })
  @ApiOkResponse({ type: [AttributePriorityDto] })
  @ApiErrors(400)
  set(@Body() body: SetAttributePriorityDto, @CurrentInitiator() initiator: Initiator) {
    return this.priorities.set(body, initiator);
  }
}
