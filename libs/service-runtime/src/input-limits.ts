/**
 * The bounds every request's input meets at parse, before any route sees it, in both services:
 * one place per kind of input. Form bodies (url-encoded.ts) and query strings (the same check,
 * in a preValidation hook) share the parameter bounds; JSON bodies (json-body.ts) have their own.
 * Each route then applies its own, tighter bounds (an OAuth parameter's length, the number of
 * RFC 8707 resources, a schema's `.max()`): these are the backstop above all of them, so a route's
 * own refusal, with its own description, comes first wherever it has one.
 *
 * Body sizes are bounded before this, by the body limit (SERVICE_BODY_LIMITS), and the request
 * line and headers by Node's 16 KiB header limit.
 */
export const INPUT_LIMITS = {
  /** name=value pairs in one query string or form body. The largest request (the consent form) has about 25. */
  parameters: 100,
  /** Values of one name. RFC 6749 §3.1 allows no repetition; RFC 8707 `resource` may repeat, at most 10 times. */
  valuesPerName: 16,
  /** Characters of a parameter name. */
  nameLength: 128,
  /** Characters of a parameter value: above every OAuth parameter's own bound (4096 at most). */
  valueLength: 8192,
  /**
   * Nesting of a JSON body (the top-level object or array is level 1). The deepest body a route
   * accepts is an MCP tool call's arguments, a few levels; 64 is System.Text.Json's default too.
   * It keeps every recursive consumer downstream (zod, the MCP SDK's request conversion,
   * JSON.stringify) far from the stack's end.
   */
  jsonDepth: 64,
  /** Characters of one JSON string or key: the longest a schema accepts is a lesson's content (100,000). */
  jsonStringLength: 100_000,
} as const;
