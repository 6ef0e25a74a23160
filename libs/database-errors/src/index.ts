export { databaseErrorClassifier } from './database-error-classifier';
