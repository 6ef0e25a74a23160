import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPricingFile, parsePricing, PricingFileError, renderPricing, resolvePricingFile } from './pricing';
import { TEST_OPTIONS } from '../../test/support/documents-options';

const FILE = '/etc/platform/pricing.yaml';

const VALID = `
currency: EUR
plans:
  - id: free
    name: Free
    summary: Try it.
    price: { monthly: 0 }
    transaction_fee_percent: 5
    limits: { courses: 1, students: 50, team_members: 1, storage_gb: 1 }
    api: { requests_per_minute: 30, requests_per_day: 1000, mcp: false }
  - id: pro
    name: Pro
    summary: Grow.
    price: { monthly: 99.5, yearly: 995 }
    transaction_fee_percent: 0
    limits: { courses: unlimited, students: 20000, team_members: 10, storage_gb: 250 }
    api: { requests_per_minute: 600, requests_per_day: unlimited, mcp: true }
    features: [Custom domain]
  - id: enterprise
    name: Enterprise
    summary: Talk to us.
    price: custom
    transaction_fee_percent: 0
    limits: { courses: unlimited, students: unlimited, team_members: unlimited, storage_gb: 2000 }
    api: { requests_per_minute: 3000, requests_per_day: unlimited, mcp: true }
    contact: sales@example.com
notes:
  - Prices exclude VAT.
`;

describe('the pricing document (/pricing.md)', () => {
  it('renders a comparison row per plan with prices, limits and API rate limits', () => {
    const markdown = renderPricing(parsePricing(VALID, FILE), TEST_OPTIONS);
    expect(markdown).toContain(
      '| Plan | Monthly | Yearly | Courses | Students | Team members | Storage | Transaction fee | API rate limit | MCP |',
    );
    expect(markdown).toContain('| Free | Free | Free | 1 | 50 | 1 | 1 GB | 5% | 30/min, 1,000/day | No |');
    expect(markdown).toContain('| Pro | €99.50/month | €995/year | Unlimited | 20,000 | 10 | 250 GB | 0% | 600/min, Unlimited/day | Yes |');
    expect(markdown).toContain('| Enterprise | Custom | Custom | Unlimited | Unlimited | Unlimited | 2,000 GB | 0% | 3,000/min, Unlimited/day | Yes |');
  });

  it('has a section per plan with its features, contact and the notes', () => {
    const markdown = renderPricing(parsePricing(VALID, FILE), TEST_OPTIONS);
    expect(markdown.match(/^### /gm)).toHaveLength(3);
    expect(markdown).toContain('### Pro\n\nGrow.\n\n- Price: €99.50/month or €995/year');
    expect(markdown).toContain('- Custom domain');
    expect(markdown).toContain('- Contact: <mailto:sales@example.com>');
    expect(markdown).toContain('## Notes\n\n- Prices exclude VAT.');
    expect(markdown).toContain('[https://learn.example.com/auth.md](https://learn.example.com/auth.md)');
  });

  it('ships a valid plans file with Free, Starter, Pro and Enterprise', () => {
    const pricing = loadPricingFile(TEST_OPTIONS.pricingFile);
    expect(pricing.plans.map((plan) => plan.name)).toEqual(['Free', 'Starter', 'Pro', 'Enterprise']);
    expect(renderPricing(pricing, TEST_OPTIONS)).toMatch(/^# Pricing: Course Platform API\n/);
  });

  describe('validation names the file, the field and its line', () => {
    it.each([
      ['a price that is not a number', VALID.replace('monthly: 99.5', 'monthly: lots'), /plans\[1\]\.price: must be \{ monthly, yearly \(optional\) \} with amounts of 0 or more, or "custom" \(line 14\)/],
      ['a missing field', VALID.replace('    summary: Grow.\n', ''), /plans\[1\]\.summary: .*expected string, received undefined \(line 11\)/],
      ['an unknown field', VALID.replace('currency: EUR', 'currency: EUR\ncurency: USD'), /\(top level\): Unrecognized key: "curency"/],
      ['a negative limit', VALID.replace('students: 50,', 'students: -5,'), /plans\[0\]\.limits\.students: .*\(line 9\)/],
      ['a duplicate plan id', VALID.replace('id: pro', 'id: free'), /plans\[1\]\.id: duplicate plan id "free" \(line 11\)/],
      ['a bad currency', VALID.replace('currency: EUR', 'currency: euro'), /currency: must be an ISO 4217 code such as USD \(line 2\)/],
      ['no plans', 'currency: USD\nplans: []\n', /plans: .*>=1 items/],
    ])('%s', (_name, source, message) => {
      expect(() => parsePricing(source, FILE)).toThrow(PricingFileError);
      expect(() => parsePricing(source, FILE)).toThrow(/^Invalid pricing file \/etc\/platform\/pricing\.yaml: /);
      expect(() => parsePricing(source, FILE)).toThrow(message);
    });

    it('reports YAML syntax errors with their position', () => {
      expect(() => parsePricing('currency: USD\nplans:\n  - id: [free\n', FILE)).toThrow(
        /^Invalid pricing file \/etc\/platform\/pricing\.yaml: .* \(line 4, column 1\)$/,
      );
    });

    it('names a file that cannot be read', () => {
      expect(() => loadPricingFile('/nonexistent/pricing.yaml')).toThrow(
        'Invalid pricing file /nonexistent/pricing.yaml: cannot be read (ENOENT)',
      );
    });
  });

  describe('the file location', () => {
    it('is PRICING_FILE when set, resolved against the working directory', () => {
      expect(resolvePricingFile({ PRICING_FILE: '/srv/pricing.yaml' })).toBe('/srv/pricing.yaml');
      expect(resolvePricingFile({ PRICING_FILE: 'config/pricing.yaml' })).toBe(join(process.cwd(), 'config/pricing.yaml'));
    });

    it('is the shipped data/pricing.yaml otherwise', () => {
      expect(resolvePricingFile({})).toBe(TEST_OPTIONS.pricingFile);
    });

    it('accepts JSON, which is YAML too', () => {
      const dir = mkdtempSync(join(tmpdir(), 'pricing-'));
      const file = join(dir, 'pricing.json');
      writeFileSync(file, JSON.stringify(loadPricingFile(TEST_OPTIONS.pricingFile)));
      expect(loadPricingFile(file).plans).toHaveLength(4);
    });
  });
});
