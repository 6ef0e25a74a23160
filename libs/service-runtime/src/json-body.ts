/// <reference lib="es2024.string" />
import { InvalidRequestError } from '@platform/oauth-errors';
import type { FastifyInstance } from 'fastify';
import { INPUT_LIMITS } from './input-limits';

/** A JSON body refused for its shape (nesting, a string), not its syntax: 400 invalid_request. */
export class RefusedJsonBodyError extends InvalidRequestError {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The JSON body parser of both services: Fastify's own (secure-json-parse: the syntax, and the
 * refusal of `__proto__` and `constructor.prototype` keys), between two checks of INPUT_LIMITS.
 * - Before it, the nesting depth, on the text: a megabyte of `[` is refused after 65 characters,
 *   before JSON.parse builds half a million arrays (~0.2 s) for a consumer downstream to recurse
 *   into until the stack ends (the MCP SDK's request conversion did: a 500).
 * - After it, every string and key: well-formed Unicode (a lone UTF-16 surrogate, `"\ud800"`, is
 *   valid JSON but no text: the database layer failed on it with a 500, and a client cannot
 *   print it) and not too long.
 * Both are single passes without recursion, whatever the input.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const parse = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (nestingExceeds(body, INPUT_LIMITS.jsonDepth)) {
      done(new RefusedJsonBodyError(`The JSON body is nested deeper than ${INPUT_LIMITS.jsonDepth} levels`), undefined);
      return;
    }
    parse(request, body, (error, value) => {
      const refusal = error ?? stringRefusal(value);
      if (refusal) done(refusal, undefined);
      else done(null, value);
    });
  });
}

/**
 * Whether JSON text nests objects and arrays deeper than `max`, the top level being 1: one pass
 * that stops at the first level too deep, skipping strings (their brackets do not count) with
 * indexOf. Malformed text is JSON.parse's to refuse; this only counts.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) i = closingQuote(text, i);
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** The index of the quote that ends the string opened at `open` (the text's length if none does). */
function closingQuote(text: string, open: number): number {
  let quote = open;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote === -1) return text.length;
    // Escaped when an odd number of backslashes precede it. Each run is counted once: linear.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
}

/** The refusal for the first string or key of a parsed value that breaks INPUT_LIMITS, if any. Iterative. */
export function stringRefusal(value: unknown): RefusedJsonBodyError | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      const refusal = refuseString(item);
      if (refusal) return refusal;
    } else if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'object' || typeof element === 'string') pending.push(element);
    } else if (typeof item === 'object' && item !== null) {
      // for...in: JSON.parse makes plain objects, whose prototype has nothing enumerable.
      for (const key in item) {
        const refusal = refuseString(key);
        if (refusal) return refusal;
        const element = (item as Record<string, unknown>)[key];
        if (typeof element === 'object' || typeof element === 'string') pending.push(element);
      }
    }
  }
  return undefined;
}

function refuseString(text: string): RefusedJsonBodyError | undefined {
  if (text.length > INPUT_LIMITS.jsonStringLength) {
    return new RefusedJsonBodyError(`The JSON body has a string longer than ${INPUT_LIMITS.jsonStringLength} characters`);
  }
  if (!text.isWellFormed()) {
    return new RefusedJsonBodyError('The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)');
  }
  return undefined;
}
