/**
 * The grammar every `error_description` must stay within, in every place it is sent:
 *
 * - RFC 6749 §5.2 (token endpoint body) and §4.1.2.1 (authorization redirect): "Values for the
 *   "error_description" parameter MUST NOT include characters outside the set %x20-21 /
 *   %x23-5B / %x5D-7E", i.e. printable ASCII without `"` and `\`.
 * - RFC 6750 §3 (the `WWW-Authenticate: Bearer` attribute): the same set.
 * - RFC 7591 §3.2.2 (registration errors): "human-readable ASCII".
 *
 * OAuthError runs every description through {@link toErrorDescription} when it is built, so
 * no caller can put anything else on the wire.
 */
export const ERROR_DESCRIPTION_GRAMMAR = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** Long enough for any message of this code base; short enough to bound what is echoed. */
export const MAX_ERROR_DESCRIPTION_LENGTH = 500;

/** Typographic characters written in messages, spelled in the grammar's characters. */
const SPELLED: Readonly<Record<string, string>> = {
  '"': "'",
  '\\': '/',
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': "'",
  '\u201d': "'",
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u00a7': 'section ',
  '\u2192': '->',
  '\u00a0': ' ',
};

/**
 * A description within the grammar: typographic characters spelled in ASCII, letters with
 * accents reduced to their base letter (NFKD), line breaks and tabs as spaces, anything else
 * as `?`; at most MAX_ERROR_DESCRIPTION_LENGTH characters.
 */
export function toErrorDescription(text: string): string {
  let out = '';
  for (const char of text.normalize('NFKD')) {
    if (ERROR_DESCRIPTION_GRAMMAR.test(char)) out += char;
    else if (SPELLED[char] !== undefined) out += SPELLED[char];
    else if (/\p{M}/u.test(char)) continue; // a combining mark left by NFKD: é -> e
    else if (char === '\t' || char === '\r' || char === '\n') out += ' ';
    else out += '?';
    if (out.length >= MAX_ERROR_DESCRIPTION_LENGTH) break;
  }
  return out.slice(0, MAX_ERROR_DESCRIPTION_LENGTH);
}

/** True when the text is already within the grammar (what a message written in code should be). */
export function isErrorDescription(text: string): boolean {
  return ERROR_DESCRIPTION_GRAMMAR.test(text) && text.length <= MAX_ERROR_DESCRIPTION_LENGTH;
}
