import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProperty,
  getSchemaPath,
} from '@nestjs/swagger';

/** Every error body (RFC 6749 §5.2 shape, from OAuthExceptionFilter). */
export class ErrorDto {
  @ApiProperty({ example: 'not_found', description: 'Error code' })
  error!: string;

  @ApiProperty({ example: 'No such course', description: 'Human-readable explanation' })
  error_description!: string;
}

/** 200 with `{ data: [model], next_cursor }`. */
export function ApiPageOf(model: Type, description = 'One page of the list, in a stable order') {
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['data', 'next_cursor'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          next_cursor: {
            type: 'string',
            nullable: true,
            description: 'Pass as ?cursor= for the next page; null on the last page',
          },
        },
      },
    }),
  );
}

export const ApiInvalidRequest = () =>
  ApiBadRequestResponse({ type: ErrorDto, description: '`invalid_request`: a parameter or body field is invalid; the description names it' });

export const ApiNotFound = (what = 'item') =>
  ApiNotFoundResponse({ type: ErrorDto, description: `\`not_found\`: no such ${what} in the school, or not visible to the caller` });

export const ApiConflict = (why: string) => ApiConflictResponse({ type: ErrorDto, description: `\`conflict\`: ${why}` });
