ALTER TABLE "oauth_tokens" ADD COLUMN "branch" text;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD COLUMN "forked_at" bigint;