-- AlterTable
ALTER TABLE "access_tokens" ADD COLUMN     "dpop_jkt" TEXT;

-- AlterTable
ALTER TABLE "authorization_codes" ADD COLUMN     "dpop_jkt" TEXT;

-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "dpop_bound_access_tokens" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "refresh_tokens" ADD COLUMN     "dpop_jkt" TEXT;

-- CreateTable
CREATE TABLE "used_dpop_proofs" (
    "id_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "used_dpop_proofs_pkey" PRIMARY KEY ("id_hash")
);

-- CreateIndex
CREATE INDEX "used_dpop_proofs_expires_at_idx" ON "used_dpop_proofs"("expires_at");
