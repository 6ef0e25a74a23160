import { renderLlmsTxt } from './llms-txt';
import { TEST_OPTIONS } from '../../test/support/documents-options';

describe('/llms.txt', () => {
  const text = renderLlmsTxt(TEST_OPTIONS);
  const lines = text.split('\n');

  it('opens with the H1 title and a blockquote summary (llms.txt format)', () => {
    expect(lines[0]).toBe('# Course Platform API');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> /);
    expect(text.match(/^# /gm)).toHaveLength(1);
  });

  it('has H2 sections made of markdown link lists', () => {
    const sections = text.split(/^## /m).slice(1);
    expect(sections.map((section) => section.split('\n')[0])).toEqual(['Docs', 'API', 'Discovery']);
    for (const section of sections) {
      const items = section.split('\n').slice(1).filter((line) => line.trim() !== '');
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) expect(item).toMatch(/^- \[[^\]]+\]\(https:\/\/[^)]+\): \S/);
    }
  });

  it('links the guide, the OpenAPI document, pricing, MCP, the API base and both metadata documents', () => {
    const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]);
    expect(links).toEqual(
      expect.arrayContaining([
        'https://learn.example.com/auth.md',
        'https://learn.example.com/openapi.json',
        'https://learn.example.com/pricing.md',
        'https://learn.example.com/mcp',
        'https://learn.example.com/api/v1',
        'https://learn.example.com/.well-known/oauth-protected-resource',
        'https://learn.example.com/.well-known/oauth-protected-resource/mcp',
      ]),
    );
    expect(text).toMatch(/\[MCP endpoint\]\(https:\/\/learn\.example\.com\/mcp\): .*Streamable HTTP/);
    expect(text).toMatch(/\[MCP endpoint\]\([^)]+\): .*private tools by scope/);
    expect(text).toMatch(/\[Protected resource metadata for MCP\]\([^)]+\): RFC 9728 document of the resource https:\/\/learn\.example\.com\/mcp/);
  });
});
