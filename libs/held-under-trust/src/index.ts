export { HeldUnderTrust, type HeldUnderTrustOptions, type TrustJudge } from './held-under-trust';
