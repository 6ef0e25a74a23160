import type { FastifyInstance } from 'fastify';
import { UnsupportedMediaTypeError } from '@platform/oauth-errors';
import { UPLOAD_CONTENT_TYPES } from './content-types';
import { FILES_PATH } from './storage.service';

/**
 * Raw-body parsers for the upload route, one per allowed type, each with the upload size
 * limit (the service-wide JSON limit stays small). Any other route sent one of these types
 * gets 415, so large bodies are accepted on the upload route only. A type outside the list
 * never reaches a handler: Fastify answers 415 itself.
 */
export function registerUploadParsers(fastify: FastifyInstance, maxUploadBytes: number): void {
  // Fastify's built-in text/plain parser would read the body as a string under the JSON limit.
  fastify.removeContentTypeParser('text/plain');
  const uploadRoute = `/${FILES_PATH}`;
  fastify.addContentTypeParser([...UPLOAD_CONTENT_TYPES], { parseAs: 'buffer', bodyLimit: maxUploadBytes }, (request, body, done) => {
    if (request.routeOptions.url !== uploadRoute) {
      done(new UnsupportedMediaTypeError('This route accepts application/json'), undefined);
      return;
    }
    done(null, body);
  });
}
