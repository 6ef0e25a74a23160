export { DocumentsModule } from './documents.module';
export { DOCUMENTS_OPTIONS, type DocumentsOptions, type ScopeCatalogue } from './documents-options';
export { RESOURCE_PATHS } from '../common/resource-paths';
export { resolvePricingFile, PRICING_FILE_ENV } from './pricing';
