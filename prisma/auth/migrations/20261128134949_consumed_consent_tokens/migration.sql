-- CreateTable
CREATE TABLE "consumed_consent_tokens" (
    "id_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "consumed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "consumed_consent_tokens_pkey" PRIMARY KEY ("id_hash")
);

-- CreateIndex
CREATE INDEX "consumed_consent_tokens_expires_at_idx" ON "consumed_consent_tokens"("expires_at");
