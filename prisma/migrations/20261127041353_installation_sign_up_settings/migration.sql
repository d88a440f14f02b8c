-- CreateTable
CREATE TABLE "installation_settings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "sign_up_mode" TEXT NOT NULL DEFAULT 'open',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "installation_settings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sign_up_requests" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "password_hash" TEXT,
    "tenant_name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_up_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sign_up_requests_email_key" ON "sign_up_requests"("email");
