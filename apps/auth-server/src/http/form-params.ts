import { InvalidRequestError } from '@platform/oauth-errors';

export type FormBody = Record<string, string | string[] | undefined>;

/**
 * Reads the parameters of a form-encoded OAuth request. RFC 6749 §3.1 / §3.2: "Request and
 * response parameters MUST NOT be included more than once." Parameters sent without a value
 * are treated as omitted (§3.1). The body parser (libs/service-runtime, INPUT_LIMITS) has bounded
 * every name, value and repetition already; the lengths and counts here are each parameter's own.
 */
export class FormParams {
  private constructor(private readonly body: FormBody) {}

  static from(body: unknown): FormParams {
    if (body === undefined || body === null) return new FormParams({});
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new InvalidRequestError('The request body must be application/x-www-form-urlencoded');
    }
    return new FormParams(body as FormBody);
  }

  optional(name: string, maxLength = 4096): string | undefined {
    const value = this.body[name];
    if (Array.isArray(value)) throw new InvalidRequestError(`The ${name} parameter is repeated`);
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw new InvalidRequestError(`The ${name} parameter is malformed`);
    if (value.length > maxLength) throw new InvalidRequestError(`The ${name} parameter is too long`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) throw new InvalidRequestError(`The ${name} parameter contains control characters`);
    return value;
  }

  /** Every value of a parameter that may be repeated (e.g. RFC 8707 `resource`), at most maxCount of them. */
  all(name: string, maxLength = 4096, maxCount = 1): string[] {
    const value = this.body[name];
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    if (values.length > maxCount) throw new InvalidRequestError(`Too many ${name} parameters`);
    return values.map((entry) => {
      if (typeof entry !== 'string' || entry.length > maxLength) {
        throw new InvalidRequestError(`The ${name} parameter is malformed`);
      }
      return entry;
    });
  }

  required(name: string, maxLength = 4096): string {
    const value = this.optional(name, maxLength);
    if (value === undefined) throw new InvalidRequestError(`The ${name} parameter is required`);
    return value;
  }
}
