ALTER TABLE `consents` ADD `toolsets` text;--> statement-breakpoint
ALTER TABLE `consents` ADD `read_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `toolsets` text;--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `read_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `kind` text DEFAULT 'oauth' NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `name` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `toolsets` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `read_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `access_tokens_allowed` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `access_token_max_days` integer DEFAULT 90 NOT NULL;