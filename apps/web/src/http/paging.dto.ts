import { Type as ClassType } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Query integers are plain decimal digits: "0x10", "1e1" or " 2" are not numbers here. */
export const toQueryInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,12}$/.test(value) ? Number(value) : value;

/** page/pageSize query parameters of a list: pageSize defaults to `defaultPageSize` and is at most `maxPageSize`. */
export function PageQueryOf(defaultPageSize: number, maxPageSize: number): ClassType<{ page?: number; pageSize?: number }> {
  class PageQuery {
    @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 1, description: '1-based page number.' })
    @IsOptional()
    @Transform(toQueryInt)
    @IsInt({ message: 'page must be a whole number.' })
    @Min(1, { message: 'page must be at least 1.' })
    page?: number;

    @ApiPropertyOptional({ type: 'integer', default: defaultPageSize, minimum: 1, maximum: maxPageSize })
    @IsOptional()
    @Transform(toQueryInt)
    @IsInt({ message: 'pageSize must be a whole number.' })
    @Min(1, { message: 'pageSize must be at least 1.' })
    @Max(maxPageSize, { message: `pageSize must be at most ${maxPageSize}.` })
    pageSize?: number;
  }
  return PageQuery;
}

/** page/pageSize query parameters with the limits of spec §8 (pageSize default 25, max 100). */
export class PageQueryDto extends PageQueryOf(25, 100) {}
