ALTER TABLE `tasks` ADD `owner_grant_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `tasks_owner_user_idx` ON `tasks` (`owner_user_id`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_owner_workspace_idx` ON `tasks` (`owner_workspace_id`,`status`);