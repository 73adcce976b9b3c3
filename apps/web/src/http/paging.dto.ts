import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** page/pageSize query parameters with the limits of spec §8 (pageSize max 100). */
export class PageQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1, description: '1-based page number.' })
  @IsOptional() @Type(() => Number) @IsInt({ message: 'page must be a whole number.' }) @Min(1, { message: 'page must be at least 1.' })
  page?: number;

  @ApiPropertyOptional({ default: 25, minimum: 1, maximum: 100 })
  @IsOptional() @Type(() => Number) @IsInt({ message: 'pageSize must be a whole number.' }) @Min(1, { message: 'pageSize must be at least 1.' }) @Max(100, { message: 'pageSize must be at most 100.' })
  pageSize?: number;
}
