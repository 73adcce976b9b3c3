import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConnectedSystemObjectTypesService, Initiator } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  BulkAttributeUpdateResultDto,
  BulkUpdateAttributesDto,
  CsAttributeDto,
  CsObjectTypeDto,
  UpdateAttributeDto,
  UpdateObjectTypeDto,
} from './dto/object-type.dto';

/** Spec 4.9: the schema selection of a connected system. */
@ApiTags('Connected systems')
@Controller('api/v1/synchronisation/connected-systems/:connectedSystemId/object-types')
@AdminEndpoint()
export class ConnectedSystemObjectTypesController {
  constructor(private readonly objectTypes: ConnectedSystemObjectTypesService) {}

  @Get()
  @ApiOperation({ summary: 'List object types with their attributes' })
  @ApiOkResponse({ type: [CsObjectTypeDto] })
  @ApiErrors(400, 404)
  list(@Param('connectedSystemId', IntIdPipe) systemId: number) {
    return this.objectTypes.list(systemId);
  }

  @Put(':objectTypeId')
  @ApiOperation({
    summary: 'Update an object type',
    description: 'selected and removeContributedAttributesOnObsoletion; marks the system for a full synchronisation.',
  })
  @ApiOkResponse({ type: CsObjectTypeDto })
  @ApiErrors(400, 404, 409)
  update(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Param('objectTypeId', IntIdPipe) objectTypeId: number,
    @Body() body: UpdateObjectTypeDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.objectTypes.updateObjectType(systemId, objectTypeId, body, initiator);
  }

  @Put(':objectTypeId/attributes/:attributeId')
  @ApiOperation({
    summary: 'Update an attribute',
    description:
      'Rule 1: isExternalId true clears it from every other attribute of the type (likewise isSecondaryExternalId). ' +
      'Rule 2: external ID and secondary external ID attributes are selected automatically and cannot be deselected (400 VALIDATION_ERROR on selected). ' +
      'An attribute cannot be both the external ID and the secondary external ID.',
  })
  @ApiOkResponse({ type: CsAttributeDto })
  @ApiErrors(400, 404, 409)
  updateAttribute(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Param('objectTypeId', IntIdPipe) objectTypeId: number,
    @Param('attributeId', IntIdPipe) attributeId: number,
    @Body() body: UpdateAttributeDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.objectTypes.updateAttribute(systemId, objectTypeId, attributeId, body, initiator);
  }

  @Post(':objectTypeId/attributes/bulk-update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update several attributes',
    description:
      'An empty dictionary, unknown attribute ids or invalid fields are a 400 VALIDATION_ERROR and change nothing. ' +
      'An attribute whose update breaks a rule (e.g. deselecting an external ID) is reported in errors and not changed; the others are applied.',
  })
  @ApiOkResponse({ type: BulkAttributeUpdateResultDto })
  @ApiErrors(400, 404, 409)
  bulkUpdate(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Param('objectTypeId', IntIdPipe) objectTypeId: number,
    @Body() body: BulkUpdateAttributesDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.objectTypes.bulkUpdateAttributes(systemId, objectTypeId, body.attributes, initiator);
  }
}
