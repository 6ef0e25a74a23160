-- CreateTable
CREATE TABLE "signing_key_publications" (
    "kid" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "first_published_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_configured_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signing_key_publications_pkey" PRIMARY KEY ("kid")
);
