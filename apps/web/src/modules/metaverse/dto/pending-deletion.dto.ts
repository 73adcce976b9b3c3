import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { PendingDeletionStatus } from '@meridian/domain';
import { MAX_INTEGER_ID, WholeNumberWithin } from '../../../http/field.validation';
import { PageQueryDto, toQueryInt } from '../../../http/paging.dto';

const OBJECT_TYPE_ID = { minimum: 1, description: 'Only objects of this metaverse object type (unknown type: 400).' };

export class PendingDeletionCountQueryDto {
  @ApiPropertyOptional(OBJECT_TYPE_ID)
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  @WholeNumberWithin({ max: MAX_INTEGER_ID }, 'objectTypeId must be a positive whole number.')
  objectTypeId?: number;
}

export class PendingDeletionListQueryDto extends PageQueryDto {
  @ApiPropertyOptional(OBJECT_TYPE_ID)
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  @WholeNumberWithin({ max: MAX_INTEGER_ID }, 'objectTypeId must be a positive whole number.')
  objectTypeId?: number;
}

/** Spec 2.9. */
export class PendingDeletionDto {
  @ApiProperty({ format: 'uuid', description: 'Metaverse object id.' }) id: string;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty() typeName: string;
  @ApiProperty() typeId: number;
  @ApiProperty({ format: 'date-time' }) lastConnectorDisconnectedDate: string;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time', description: 'When the grace period expires.' })
  deletionEligibleDate: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'Whole days from now to deletionEligibleDate, rounded down: negative when overdue, null without a date.',
  })
  daysUntilDeletion: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '7.00:00:00', description: 'Grace period of the object type.' })
  gracePeriod: string | null;
  @ApiProperty({ description: 'Connector space objects still joined (0 when fully disconnected).' }) connectedSystemObjectCount: number;
  @ApiProperty({ enum: PendingDeletionStatus }) status: PendingDeletionStatus;
}

export class PendingDeletionSummaryDto {
  @ApiProperty() totalCount: number;
  @ApiProperty() deprovisioningCount: number;
  @ApiProperty() awaitingGracePeriodCount: number;
  @ApiProperty() readyForDeletionCount: number;
}
