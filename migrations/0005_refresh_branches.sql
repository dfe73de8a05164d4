ALTER TABLE `oauth_tokens` ADD `branch` text;--> statement-breakpoint
ALTER TABLE `oauth_tokens` ADD `forked_at` integer;