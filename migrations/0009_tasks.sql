CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_user_id` text NOT NULL,
	`owner_client_id` text NOT NULL,
	`owner_workspace_id` text NOT NULL,
	`tool` text NOT NULL,
	`args` text NOT NULL,
	`job_kind` text NOT NULL,
	`job_id` text NOT NULL,
	`reused_age_ms` integer,
	`status` text NOT NULL,
	`status_message` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`next_poll_at` integer,
	`result` text,
	`lease_owner` text,
	`lease_until` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tasks_working_lease_idx` ON `tasks` (`status`,`lease_until`);--> statement-breakpoint
CREATE INDEX `tasks_lease_owner_idx` ON `tasks` (`lease_owner`);--> statement-breakpoint
CREATE INDEX `tasks_expires_idx` ON `tasks` (`expires_at`);