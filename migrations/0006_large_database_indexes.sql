DROP INDEX `audit_user_at_idx`;--> statement-breakpoint
DROP INDEX `audit_workspace_at_idx`;--> statement-breakpoint
DROP INDEX `audit_at_idx`;--> statement-breakpoint
CREATE INDEX `audit_workspace_kind_at_idx` ON `audit_events` (`workspace_id`,`kind`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_workspace_tool_at_idx` ON `audit_events` (`workspace_id`,`tool`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_user_workspace_at_idx` ON `audit_events` (`user_id`,`workspace_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_workspace_at_idx` ON `audit_events` (`workspace_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_at_idx` ON `audit_events` (`at`,`id`);--> statement-breakpoint
CREATE INDEX `clients_expires_idx` ON `oauth_clients` (`expires_at`,`id`);--> statement-breakpoint
CREATE INDEX `codes_expires_idx` ON `oauth_codes` (`expires_at`);--> statement-breakpoint
CREATE INDEX `decisions_expires_idx` ON `oauth_decisions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `tokens_revoked_idx` ON `oauth_tokens` (`revoked_at`) WHERE "oauth_tokens"."revoked_at" IS NOT NULL;