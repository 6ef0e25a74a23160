export { isSpecialUseAddress } from './special-use-address';
export {
  checkPeerOnConnect,
  type ConnectionPolicy,
  guardedLookup,
  guardedRequestOptions,
  isSpecialUseLiteral,
  type Resolver,
  SpecialUseAddressError,
} from './guarded-connection';
export { type OutboundAnswer, OutboundError, type OutboundLimits, type OutboundProblem, postOutbound } from './outbound-post';
