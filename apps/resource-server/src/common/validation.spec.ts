import { InvalidRequestError } from '@platform/oauth-errors';
import { z } from 'zod';
import { UpdateAppearance } from '../appearance/appearance.dto';
import { CreateCoupon } from '../coupons/coupons.dto';
import { CreateCourse, CreateCourseDto, ListCoursesQuery } from '../courses/courses.dto';
import { CreateEvent } from '../events/events.dto';
import { UpdateSchool } from '../school/school.dto';
import { body, query, zodDto } from './validation';

/** @nestjs/swagger's metadata keys (its constants module is not exported). */
const DECORATORS = { API_MODEL_PROPERTIES_ARRAY: 'swagger/apiModelPropertiesArray', API_MODEL_PROPERTIES: 'swagger/apiModelProperties' };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as InvalidRequestError).description;
  }
  throw new Error('expected a refusal');
}

describe('request validation', () => {
  it.each([
    ['a missing required field', CreateCourse, { price_cents: 100 }, /^title: /],
    ['a wrong type', CreateCourse, { title: 'X', price_cents: '100' }, /^price_cents: /],
    ['a negative price', CreateCourse, { title: 'X', price_cents: -1 }, /^price_cents: /],
    ['a bad slug', CreateCourse, { title: 'X', price_cents: 1, slug: 'Not A Slug' }, /^slug: /],
    ['an unknown field (no silent school_id)', CreateCourse, { title: 'X', price_cents: 1, school_id: 'other-school' }, /school_id/],
    ['no body at all', CreateCourse, undefined, /^request body: /],
    ['a bad coupon code', CreateCoupon, { code: 'a b', percent_off: 5 }, /^code: /],
    ['a bad colour', UpdateAppearance, { primary_color: 'red' }, /^primary_color: /],
    ['an unknown time zone', UpdateSchool, { timezone: 'Mars/Olympus' }, /^timezone: /],
    ['a settings key that is not snake_case', UpdateSchool, { settings: { 'Bad Key': 1 } }, /^settings\.Bad Key: /],
    ['a date without offset', CreateEvent, { title: 'X', starts_at: '2026-01-01 10:00' }, /^starts_at: /],
  ] as const)('names the field of %s', (_name, schema, input, message) => {
    expect(refusal(() => body(schema as z.ZodType).transform(input))).toMatch(message);
  });

  it('names the query parameter', () => {
    expect(refusal(() => query(ListCoursesQuery).transform({ limit: '0' }))).toMatch(/^limit: /);
    expect(refusal(() => query(ListCoursesQuery).transform({ published: 'yes' }))).toMatch(/^published: /);
  });

  it('applies defaults and coercions to queries', () => {
    expect(query(ListCoursesQuery).transform({ limit: '7', published: 'false' })).toEqual({ limit: 7, published: false });
    expect(query(ListCoursesQuery).transform(undefined)).toEqual({ limit: 20 });
  });

  it('normalizes what it accepts', () => {
    expect(body(CreateCoupon).transform({ code: 'spring-10', percent_off: 10 })).toMatchObject({ code: 'SPRING-10' });
    expect(body(UpdateAppearance).transform({ accent_color: '#ABCDEF' })).toEqual({ accent_color: '#abcdef' });
  });
});

describe('zodDto', () => {
  const properties = (dto: object) => Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, (dto as { prototype: object }).prototype) as string[];
  const property = (dto: object, key: string) =>
    Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, (dto as { prototype: object }).prototype, key) as Record<string, unknown>;

  it('documents every property of the schema', () => {
    expect(properties(CreateCourseDto)).toEqual(Object.keys(CreateCourse.shape).map((key) => `:${key}`));
  });

  it('carries required-ness, types, bounds and descriptions', () => {
    expect(property(CreateCourseDto, 'title')).toMatchObject({ type: 'string', required: true, minLength: 1, maxLength: 200 });
    expect(property(CreateCourseDto, 'price_cents')).toMatchObject({ type: 'integer', required: true, minimum: 0 });
    expect(property(CreateCourseDto, 'slug')).toMatchObject({ required: false, description: 'Defaults to one made from the title' });
    expect(property(CreateCourseDto, 'lecturer_id')).toMatchObject({ nullable: true, required: false });
  });

  it('drops the noise zod adds to formats and integers', () => {
    class Dto extends zodDto(z.object({ at: z.iso.datetime(), n: z.number().int(), e: z.email() }), 'output') {}
    const documented = (key: string) => {
      const { isArray: _isArray, ...rest } = property(Dto, key);
      return rest;
    };
    expect(documented('at')).toEqual({ type: 'string', format: 'date-time', required: true });
    expect(documented('n')).toEqual({ type: 'integer', required: true });
    expect(documented('e')).toEqual({ type: 'string', format: 'email', required: true });
  });
});
