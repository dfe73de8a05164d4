CREATE TABLE "oauth_decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"answer_sealed" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "redirect_uri_sent" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "family_id" text;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD COLUMN "family_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD COLUMN "grace_used_at" bigint;--> statement-breakpoint
ALTER TABLE "oauth_decisions" ADD CONSTRAINT "oauth_decisions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "grants_live_user_client_workspace_idx" ON "oauth_grants" USING btree ("user_id","client_id","workspace_id") WHERE "oauth_grants"."revoked_at" IS NULL;--> statement-breakpoint
CREATE INDEX "tokens_family_idx" ON "oauth_tokens" USING btree ("family_id");