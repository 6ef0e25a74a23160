import { Readable } from 'node:stream';

/** One read of a download: 256 KiB, so memory per download stays bounded whatever the file's size. */
export const CONTENT_SLICE_BYTES = 256 * 1024;

/** Reads `length` bytes of a file's content from `offset`: fewer (or none) when the content is gone. */
export type ReadSlice = (offset: number, length: number) => Promise<Buffer | null>;

/**
 * A stored file's content as a stream of slices read from the database one after the other,
 * each when the client has taken the previous one (backpressure): a download never holds the
 * whole file. `first` is the slice already read (the service reads it to tell 404 from 200).
 * The content never changes once written; a slice that comes back short (the school was deleted
 * meanwhile) ends the stream with an error, so a truncated answer is never mistaken for a file.
 */
export function storedContentStream(size: number, first: Buffer, readSlice: ReadSlice, sliceBytes = CONTENT_SLICE_BYTES): Readable {
  let offset = 0;
  let pending: Buffer | null = first;
  return new Readable({
    highWaterMark: sliceBytes,
    read() {
      if (offset >= size) {
        this.push(null);
        return;
      }
      const length = Math.min(sliceBytes, size - offset);
      const slice = pending ? Promise.resolve(pending) : readSlice(offset, length);
      pending = null;
      slice.then(
        (bytes) => {
          if (!bytes || bytes.length !== length) {
            this.destroy(new Error(`stored content ended at byte ${offset + (bytes?.length ?? 0)} of ${size}`));
            return;
          }
          offset += length;
          this.push(bytes);
        },
        (error: Error) => this.destroy(error),
      );
    },
  });
}
