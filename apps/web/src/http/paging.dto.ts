import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Query integers are plain decimal digits: "0x10", "1e1" or " 2" are not numbers here. */
export const toQueryInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,12}$/.test(value) ? Number(value) : value;

/** page/pageSize query parameters with the limits of spec §8 (pageSize max 100). */
export class PageQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1, description: '1-based page number.' })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'page must be a whole number.' })
  @Min(1, { message: 'page must be at least 1.' })
  page?: number;

  @ApiPropertyOptional({ default: 25, minimum: 1, maximum: 100 })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'pageSize must be a whole number.' })
  @Min(1, { message: 'pageSize must be at least 1.' })
  @Max(100, { message: 'pageSize must be at most 100.' })
  pageSize?: number;
}
