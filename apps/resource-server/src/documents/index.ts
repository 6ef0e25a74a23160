export { DocumentsModule } from './documents.module';
export {
  DOCUMENTS_OPTIONS,
  RESOURCE_PATHS,
  type DocumentsOptions,
  type ScopeCatalogue,
} from './documents-options';
export { resolvePricingFile, PRICING_FILE_ENV } from './pricing';
