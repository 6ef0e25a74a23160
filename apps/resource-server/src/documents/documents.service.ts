import { Inject, Injectable } from '@nestjs/common';
import { renderAuthGuide } from './auth-guide';
import { DOCUMENTS_OPTIONS, type DocumentsOptions } from './documents-options';
import { renderLlmsTxt } from './llms-txt';
import { loadPricingFile, renderPricing } from './pricing';
import { buildMcpProtectedResourceMetadata, buildProtectedResourceMetadata, type ProtectedResourceMetadata } from './protected-resource-metadata';

/**
 * Every document is built once, at start: they depend only on the options and the pricing
 * file, and a malformed pricing file must stop the start rather than fail a request later.
 */
@Injectable()
export class DocumentsService {
  readonly protectedResourceMetadata: ProtectedResourceMetadata;
  readonly mcpProtectedResourceMetadata: ProtectedResourceMetadata;
  readonly authGuide: string;
  readonly llmsTxt: string;
  readonly pricing: string;

  constructor(@Inject(DOCUMENTS_OPTIONS) options: DocumentsOptions) {
    this.protectedResourceMetadata = buildProtectedResourceMetadata(options);
    this.mcpProtectedResourceMetadata = buildMcpProtectedResourceMetadata(options);
    this.authGuide = renderAuthGuide(options);
    this.llmsTxt = renderLlmsTxt(options);
    this.pricing = renderPricing(loadPricingFile(options.pricingFile), options);
  }
}
