import { requestIdFrom } from './request-id';

describe('requestIdFrom', () => {
  it.each(['trace-1.2_3', 'a', '0f8fad5b-d9cb-469f-a165-70867728950e', 'x'.repeat(128)])('keeps %j', (id) => {
    expect(requestIdFrom(id)).toBe(id);
  });

  it.each([[undefined], [''], ['has spaces'], ['x'.repeat(129)], ['<script>'], [['a', 'b']], ['line\nbreak']])(
    'mints a UUID instead of %j',
    (header) => {
      expect(requestIdFrom(header as string | string[] | undefined)).toMatch(/^[0-9a-f-]{36}$/);
    },
  );
});
