ALTER TABLE "consents" ADD COLUMN "toolsets" text;--> statement-breakpoint
ALTER TABLE "consents" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "toolsets" text;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "kind" text DEFAULT 'oauth' NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "toolsets" text;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "access_tokens_allowed" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "access_token_max_days" integer DEFAULT 90 NOT NULL;