export { instrumentHttp, METRICS_CONTENT_TYPE, ServiceMetrics, UNMATCHED_ROUTE } from './metrics';
