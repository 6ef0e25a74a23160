-- CreateTable
CREATE TABLE "stored_file_contents" (
    "file_id" TEXT NOT NULL,
    "content" BYTEA NOT NULL,

    CONSTRAINT "stored_file_contents_pkey" PRIMARY KEY ("file_id")
);

-- AddForeignKey
ALTER TABLE "stored_file_contents" ADD CONSTRAINT "stored_file_contents_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Out of line and uncompressed: uploads are mostly compressed already (images, PDF), and a
-- download reads the content in slices (substring), which EXTERNAL storage serves without
-- decompressing the whole value for each slice. Prisma's schema cannot say this.
ALTER TABLE "stored_file_contents" ALTER COLUMN "content" SET STORAGE EXTERNAL;
