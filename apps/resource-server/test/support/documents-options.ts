import { SCOPES } from '@platform/scopes';
import { join } from 'node:path';
import type { DocumentsOptions } from '../../src/documents/documents-options';

/** Options of the specs: a non-default origin, so nothing can pass by hard-coding 127.0.0.1:3000. */
export const TEST_OPTIONS: DocumentsOptions = {
  publicBaseUrl: 'https://learn.example.com',
  issuer: 'https://learn.example.com',
  scopes: SCOPES,
  pricingFile: join(__dirname, '..', '..', 'data', 'pricing.yaml'),
};
