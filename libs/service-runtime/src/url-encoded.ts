import { InvalidRequestError } from '@platform/oauth-errors';
import type { FastifyInstance } from 'fastify';
import { INPUT_LIMITS } from './input-limits';

/** A parsed query string or form body: a repeated name's values as an array, in order. */
export type ParameterRecord = Record<string, string | string[]>;

/**
 * An application/x-www-form-urlencoded body as the WHATWG URL Standard parses it (URLSearchParams,
 * what the authorization endpoint reads its query with), within INPUT_LIMITS. Repeated names
 * become arrays, as with Nest's parser this replaces: the OAuth endpoints must see a repetition to
 * refuse it (RFC 6749 §3.1).
 */
export function parseFormBody(text: string): ParameterRecord {
  const params: ParameterRecord = Object.create(null);
  let pairs = 0;
  // Checked as the pairs are read: no second pass over what a token request sends.
  for (const [name, value] of new URLSearchParams(text)) {
    const refusal = pairRefusal(++pairs, name, value, 'form body');
    if (refusal) throw refusal;
    const current = params[name];
    if (current === undefined) params[name] = value;
    else if (typeof current === 'string') params[name] = [current, value];
    else if (current.length === INPUT_LIMITS.valuesPerName) throw repeated('form body');
    else current.push(value);
  }
  return params;
}

/**
 * The first of INPUT_LIMITS' parameter bounds a query (as Fastify parsed it) breaks, as the 400
 * to answer; undefined within them.
 */
export function queryLimitRefusal(query: object): InvalidRequestError | undefined {
  let pairs = 0;
  for (const name in query) {
    const value: unknown = (query as Record<string, unknown>)[name];
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.length > INPUT_LIMITS.valuesPerName) return repeated('query');
    for (const item of values) {
      const refusal = pairRefusal(++pairs, name, typeof item === 'string' ? item : '', 'query');
      if (refusal) return refusal;
    }
  }
  return undefined;
}

/** Names and values are not echoed in the descriptions: they are the sender's text. */
function pairRefusal(pairs: number, name: string, value: string, where: string): InvalidRequestError | undefined {
  if (pairs > INPUT_LIMITS.parameters) return new InvalidRequestError(`The ${where} has more than ${INPUT_LIMITS.parameters} parameters`);
  if (name.length > INPUT_LIMITS.nameLength) {
    return new InvalidRequestError(`A parameter name in the ${where} is longer than ${INPUT_LIMITS.nameLength} characters`);
  }
  if (value.length > INPUT_LIMITS.valueLength) {
    return new InvalidRequestError(`A parameter value in the ${where} is longer than ${INPUT_LIMITS.valueLength} characters`);
  }
  return undefined;
}

function repeated(where: string): InvalidRequestError {
  return new InvalidRequestError(`A parameter in the ${where} is repeated more than ${INPUT_LIMITS.valuesPerName} times`);
}

/** The form body parser (the one Nest's adapter would register, made bounded). */
export function registerFormBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body: string, done) => {
    let params: ParameterRecord;
    try {
      params = parseFormBody(body);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, params);
  });
}

/**
 * The query string's bounds, on every route. Fastify parses the query while routing, where an
 * error cannot be answered (its querystringParser must not throw), so they are checked just
 * after: in preValidation, once the CORS and rate-limit hooks have run (a refusal carries the CORS
 * headers and is counted). The authorization endpoint re-reads the same query string from the URL.
 */
export function limitQueryParameters(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', (request, _reply, done) => {
    done(queryLimitRefusal(request.query as object));
  });
}
