import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isErrorDescription, MAX_ERROR_DESCRIPTION_LENGTH, toErrorDescription } from './error-description';
import * as errors from './oauth-error';
import { InvalidClientMetadataError, InvalidScopeError } from './oauth-error';

describe('toErrorDescription (RFC 6749 §5.2, RFC 6750 §3, RFC 7591 §3.2.2)', () => {
  it.each([
    ['plain ASCII stays as written', 'The code is invalid', 'The code is invalid'],
    ['a double quote becomes a single one', 'Use "Bearer <token>"', "Use 'Bearer <token>'"],
    ['a backslash becomes a slash', 'a\\b', 'a/b'],
    ['typographic quotes and dashes are spelled in ASCII', 'the school’s “x” — y – z…', "the school's 'x' - y - z..."],
    ['the section sign is spelled out', 'RFC 8252 §7.3', 'RFC 8252 section 7.3'],
    ['accents are reduced to the base letter', 'café', 'cafe'],
    ['line breaks and tabs become spaces', 'a\r\nb\tc', 'a  b c'],
    ['other control characters and symbols become ?', 'a\u0000b\u202ec😀', 'a?b?c?'],
  ])('%s', (_name, input, output) => {
    expect(toErrorDescription(input)).toBe(output);
    expect(isErrorDescription(toErrorDescription(input))).toBe(true);
  });

  it('bounds the length', () => {
    expect(toErrorDescription('x'.repeat(5000))).toHaveLength(MAX_ERROR_DESCRIPTION_LENGTH);
  });

  it('is applied by every OAuthError when it is built: no caller can put a quote on the wire', () => {
    const error = new InvalidScopeError('Unknown scope: "x\\y" — é');
    expect(error.description).toBe("Unknown scope: 'x/y' - e");
    expect(error.toBody()).toEqual({ error: 'invalid_scope', error_description: "Unknown scope: 'x/y' - e" });
    expect(new InvalidClientMetadataError('redirect_uris[0] must use http (RFC 8252 §7.3)').description).toBe(
      'redirect_uris[0] must use http (RFC 8252 section 7.3)',
    );
  });
});

/**
 * Walks the code base for OAuth errors built with a literal message and checks each one. In the
 * authorization server and the libraries, a message must already be written in the grammar (what
 * is in the code is what the client reads). Elsewhere, the conversion must lose nothing (no `?`).
 */
describe('every error message in the code base', () => {
  const root = join(__dirname, '..', '..', '..');
  const files = [...sourceFiles(join(root, 'apps')), ...sourceFiles(join(root, 'libs'))];
  const sources = new Map(files.map((file) => [relative(root, file), readFileSync(file, 'utf8')]));
  const errorClasses = oauthErrorClasses(sources);
  const messages = [...sources].flatMap(([file, text]) => literalMessages(text, errorClasses).map((message) => ({ file, message })));

  it('finds the messages (the walk works)', () => {
    expect(errorClasses.has('ConsentRequiredError')).toBe(true);
    expect(messages.length).toBeGreaterThan(100);
  });

  it('in the authorization server and the OAuth libraries: written within the grammar', () => {
    const owned = ['apps/auth-server/', 'libs/oauth-errors/', 'libs/scopes/', 'libs/contracts/'];
    const strict = messages.filter(({ file }) => owned.some((prefix) => file.startsWith(prefix)));
    expect(strict.filter(({ message }) => !isErrorDescription(message))).toEqual([]);
  });

  it('everywhere: converted without losing a character', () => {
    expect(messages.filter(({ message }) => toErrorDescription(message).includes('?') && !message.includes('?'))).toEqual([]);
  });
});

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (name === 'node_modules' || name === 'generated' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The exported error classes, plus every class that extends one of them anywhere. */
function oauthErrorClasses(sources: ReadonlyMap<string, string>): Set<string> {
  const known = new Set(Object.keys(errors).filter((name) => name.endsWith('Error')));
  for (let grew = true; grew; ) {
    grew = false;
    for (const text of sources.values()) {
      for (const [, name, parent] of text.matchAll(/class (\w+) extends (\w+)/g)) {
        if (known.has(parent) && !known.has(name)) {
          known.add(name);
          grew = true;
        }
      }
    }
  }
  return known;
}

/** First arguments written as string literals; the static text of template literals. */
function literalMessages(text: string, classes: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/new (\w+)\(\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`)/g)) {
    if (!classes.has(match[1])) continue;
    const literal = match[2] ?? match[3] ?? match[4].replace(/\$\{[^}]*\}/g, '');
    found.push(literal.replace(/\\(.)/g, '$1'));
  }
  return found;
}
