import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import { Initiator, RolesService } from '@meridian/application';
import { IntIdPipe, UuidPipe } from '@meridian/platform';
import { IsUUID } from 'class-validator';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';

class RoleDto {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'Administrator' }) name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty() isBuiltIn: boolean;
  @ApiProperty() memberCount: number;
}

class RoleMemberDto {
  @ApiProperty({ format: 'uuid' }) metaverseObjectId: string;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty({ format: 'date-time' }) added: string;
}

class AddRoleMemberDto {
  @ApiProperty({ format: 'uuid', description: 'A metaverse User.' })
  @IsUUID('all', { message: 'metaverseObjectId must be a UUID.' })
  metaverseObjectId: string;
}

@ApiTags('Roles')
@Controller('api/v1/roles')
@AdminEndpoint()
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @ApiOperation({ summary: 'List roles' })
  @Get()
  @ApiOkResponse({ type: [RoleDto] })
  list() {
    return this.roles.list();
  }

  @ApiOperation({ summary: 'Get a role' })
  @Get(':id')
  @ApiOkResponse({ type: RoleDto })
  @ApiErrors(400, 404)
  get(@Param('id', IntIdPipe) id: number) {
    return this.roles.get(id);
  }

  @ApiOperation({ summary: 'List the members of a role' })
  @Get(':id/members')
  @ApiOkResponse({ type: [RoleMemberDto] })
  @ApiErrors(400, 404)
  members(@Param('id', IntIdPipe) id: number) {
    return this.roles.members(id);
  }

  @ApiOperation({ summary: 'Add a member to a role' })
  @Post(':id/members')
  @ApiCreatedResponse({ type: [RoleMemberDto], description: 'The members after the addition (adding a member twice is harmless).' })
  @ApiErrors(400, 404)
  add(@Param('id', IntIdPipe) id: number, @Body() body: AddRoleMemberDto, @CurrentInitiator() initiator: Initiator) {
    return this.roles.addMember(id, body.metaverseObjectId.toLowerCase(), initiator);
  }

  @ApiOperation({ summary: 'Remove a member from a role' })
  @Delete(':id/members/:metaverseObjectId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(400, 404, 409)
  async remove(
    @Param('id', IntIdPipe) id: number,
    @Param('metaverseObjectId', UuidPipe) objectId: string,
    @CurrentInitiator() initiator: Initiator,
  ): Promise<void> {
    await this.roles.removeMember(id, objectId, initiator);
  }
}
