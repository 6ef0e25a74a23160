-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "disabled_at" TIMESTAMP(3),
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'dynamic',
ADD COLUMN     "metadata_fetched_at" TIMESTAMP(3);
