export { CIMD_CONFIG, type CimdConfig, isHostAllowed, loadCimdConfig, MAX_DOCUMENT_BYTES } from '../config/cimd-config';
export { clientIdHost, isUrlClientId, parseClientIdUrl } from './client-id-url';
export {
  CIMD_RESOLVER_OVERRIDES,
  ClientMetadataDocumentResolver,
  type MetadataDocumentRegisteredClient,
  type ResolverOverrides,
} from './client-metadata-document.resolver';
export { ClientMetadataDocumentsModule } from './client-metadata-documents.module';
export { MetadataDocumentError, MetadataDocumentFetchLimitError, type MetadataDocumentProblem } from './errors';
export { HostFetchBudget } from './host-fetch-budget';
export { KEY_REFETCH_COOLDOWN_MS, MAX_KEY_SET_BYTES, RemoteKeySets } from './remote-key-sets';
export { isSpecialUseAddress } from '@platform/outbound-http';
export type { Resolver } from './document-fetcher';
export { ClientDirectory, type ClientKind, type DirectoryClient, scopePolicyOf } from './client-directory';
export { matchesClientRedirectUri, onlyLoopbackRedirects } from './redirect-uri-match';
