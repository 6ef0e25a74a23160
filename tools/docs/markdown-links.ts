import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';

/** A relative link of a Markdown file that does not lead anywhere. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

interface Link {
  line: number;
  target: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const INLINE_CODE = /(`+)[\s\S]*?\1/g;
/** `[text](target)` and `![alt](target)`, with an optional title; `<target>` for targets with spaces. */
const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
/** `[label]: target` (reference definitions). */
const DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const HEADING = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const HTML_ANCHOR = /<a\s[^>]*(?:id|name)="([^"]+)"/g;

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = FENCE.exec(text)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
      return;
    }
    if (marker) {
      fence = marker;
      return;
    }
    lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** The text a heading renders as: inline code, links and emphasis markers reduced to their text. */
function headingText(source: string): string {
  return source
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*{1,3})(\S(?:.*?\S)?)\1/g, '$2');
}

/**
 * GitHub's anchor for a heading (the rule of github-slugger, which GitHub's renderer uses): lower case, every
 * character but letters, marks, digits, connector punctuation (`_`), spaces and hyphens removed, spaces made
 * hyphens; a repeated anchor in one document gets `-1`, `-2`…
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = HEADING.exec(text);
    if (heading) {
      const base = headingText(heading[1])
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
        .replace(/ /g, '-');
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of text.matchAll(HTML_ANCHOR)) anchors.add(match[1]);
  }
  return anchors;
}

/** Every link target of a Markdown text outside code (fenced blocks and inline code spans). */
export function linkTargets(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(INLINE_CODE, '');
    for (const match of prose.matchAll(INLINE_LINK)) links.push({ line, target: match[1].replace(/^<|>$/g, '') });
    const definition = DEFINITION.exec(prose);
    if (definition) links.push({ line, target: definition[1].replace(/^<|>$/g, '') });
  }
  return links;
}

/** A target with a scheme (`https:`, `mailto:`) or a protocol-relative one leaves the repository: not checked. */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/**
 * The relative links of `file` that do not resolve: a path that does not exist (from the file's folder; `/` is
 * the repository root), or a `#fragment` that is not a heading (or an `<a id>`) of the Markdown file it names.
 */
export function brokenLinks(file: string, root: string): BrokenLink[] {
  const markdown = readFileSync(file, 'utf8');
  const broken: BrokenLink[] = [];
  const name = relative(root, file);
  for (const { line, target } of linkTargets(markdown)) {
    if (!target || isExternal(target)) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash)).split('?')[0];
    const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart === '' ? file : pathPart.startsWith('/') ? join(root, pathPart) : join(dirname(file), pathPart);
    if (!existsSync(resolved)) {
      broken.push({ file: name, line, target, reason: `${relative(root, resolved)} does not exist` });
      continue;
    }
    if (fragment === undefined || statSync(resolved).isDirectory() || extname(resolved) !== '.md') continue;
    if (!headingAnchors(readFileSync(resolved, 'utf8')).has(fragment)) {
      broken.push({ file: name, line, target, reason: `${relative(root, resolved)} has no heading #${fragment}` });
    }
  }
  return broken;
}
