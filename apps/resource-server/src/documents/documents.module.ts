import { type DynamicModule, Module } from '@nestjs/common';
import { assertOrigin, DOCUMENTS_OPTIONS, type DocumentsOptions } from './documents-options';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';

/**
 * The public documents of the resource server: protected resource metadata (RFC 9728),
 * /auth.md, /llms.txt and /pricing.md.
 */
@Module({})
export class DocumentsModule {
  static register(options: DocumentsOptions): DynamicModule {
    assertOrigin('publicBaseUrl', options.publicBaseUrl);
    assertOrigin('issuer', options.issuer);
    return {
      module: DocumentsModule,
      controllers: [DocumentsController],
      providers: [{ provide: DOCUMENTS_OPTIONS, useValue: options }, DocumentsService],
      exports: [DocumentsService],
    };
  }
}
