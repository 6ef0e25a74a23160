-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "jwks" JSONB,
ADD COLUMN     "jwks_uri" TEXT;

-- CreateTable
CREATE TABLE "used_client_assertions" (
    "id_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "used_client_assertions_pkey" PRIMARY KEY ("id_hash")
);

-- CreateIndex
CREATE INDEX "used_client_assertions_expires_at_idx" ON "used_client_assertions"("expires_at");
