import { Injectable, PipeTransform, ArgumentMetadata } from '@nestjs/common';
import { DomainError } from '@meridian/domain';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that must be a UUID: anything else is a 400 VALIDATION_ERROR, never a database error. */
@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (typeof value !== 'string' || !UUID.test(value)) {
      const field = metadata.data ?? 'id';
      throw DomainError.validation(field, `${field} must be a UUID (got "${String(value).slice(0, 64)}").`);
    }
    return value.toLowerCase();
  }
}

/** A path id that must be a positive integer. */
@Injectable()
export class IntIdPipe implements PipeTransform<string | number, number> {
  transform(value: string | number, metadata: ArgumentMetadata): number {
    const field = metadata.data ?? 'id';
    // The global ValidationPipe may already have turned the text into a number (NaN for "abc").
    const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
    if (typeof text !== 'string' || !/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > 2_147_483_647) {
      throw DomainError.validation(field, `${field} must be a positive integer (got "${String(value).slice(0, 64)}").`);
    }
    return Number(value);
  }
}
