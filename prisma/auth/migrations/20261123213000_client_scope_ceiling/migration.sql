-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "scope_ceiling" TEXT;
