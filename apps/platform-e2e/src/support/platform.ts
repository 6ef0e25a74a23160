/** The origin under test: set by the global setup, or by the caller for an external stack. */
export function baseUrl(): string {
  const url = process.env['E2E_BASE_URL'];
  if (!url) throw new Error('E2E_BASE_URL is not set (the global setup starts the platform)');
  return url.replace(/\/+$/, '');
}
