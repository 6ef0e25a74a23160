-- AlterTable
ALTER TABLE "refresh_tokens" ADD COLUMN     "rotation_address_tag" TEXT;
